import Dispatch
import Synchronization

/// Hands the lines `send --lines` has read to the sending loop, in batches of whatever has
/// arrived since the last call: a line is never held back waiting for more input, and lines
/// that pile up while a call is in flight go together in the next one.
///
/// The producer is `LineReader` on its dispatch thread; it blocks (on a semaphore, never on
/// a Swift-concurrency thread) while more than `highWaterBytes` wait, so a fast producer and
/// a slow daemon do not fill memory. The consumer is one task calling `nextBatch`.
package final class LineBatchQueue: Sendable {
    package enum Item: Equatable, Sendable {
        /// A line to send, with its 1-based line number in the input.
        case message(line: Int, text: String)
        /// A line that is not sent, and why.
        case rejected(line: Int, reason: String)
        /// Reading the input failed; nothing after this arrives.
        case readFailed(String)
    }

    private struct State {
        var items: [Item] = []
        var bytes = 0
        var finished = false
        var abandoned = false
        var consumer: CheckedContinuation<Void, Never>?
        var producerBlocked = false
    }

    package let highWaterBytes: Int
    private let state = Mutex(State())
    private let producerWakeup = DispatchSemaphore(value: 0)

    package init(highWaterBytes: Int = 4 << 20) {
        self.highWaterBytes = highWaterBytes
    }

    // MARK: Producer (blocking thread)

    /// Adds an item; blocks the calling thread while the queue is over its high-water mark.
    /// Returns false once the consumer has gone away, telling the producer to stop.
    @discardableResult
    package func push(_ item: Item) -> Bool {
        let (consumer, mustWait, abandoned) = state.withLock {
            state -> (CheckedContinuation<Void, Never>?, Bool, Bool) in
            guard !state.abandoned else { return (nil, false, true) }
            state.items.append(item)
            state.bytes += Self.size(of: item)
            state.producerBlocked = state.bytes > highWaterBytes
            defer { state.consumer = nil }
            return (state.consumer, state.producerBlocked, false)
        }
        consumer?.resume()
        if mustWait { producerWakeup.wait() }
        return !abandoned
    }

    /// End of input: once the items are taken, `nextBatch` returns an empty batch.
    package func finish() {
        let consumer = state.withLock { state in
            state.finished = true
            defer { state.consumer = nil }
            return state.consumer
        }
        consumer?.resume()
    }

    // MARK: Consumer (one task)

    /// Waits until at least one item is there, then takes the items that fit in `maxBytes`
    /// of text (always at least one) and at most `maxCount` items. Empty means end of input.
    package func nextBatch(maxBytes: Int, maxCount: Int) async -> [Item] {
        while true {
            let taken = take(maxBytes: maxBytes, maxCount: maxCount)
            if let taken { return taken }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if !state.items.isEmpty || state.finished { return true }
                    state.consumer = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// The consumer stops (the daemon refused a call): wake and stop the producer.
    package func abandon() {
        let wasBlocked = state.withLock { state in
            state.abandoned = true
            state.items.removeAll()
            defer { state.producerBlocked = false }
            return state.producerBlocked
        }
        if wasBlocked { producerWakeup.signal() }
    }

    /// Nil when there is nothing to take yet and input has not ended.
    private func take(maxBytes: Int, maxCount: Int) -> [Item]? {
        let (batch, wakeProducer) = state.withLock { state -> ([Item]?, Bool) in
            if state.items.isEmpty { return (state.finished ? [] : nil, false) }
            var count = 0
            var bytes = 0
            for item in state.items {
                let size = Self.size(of: item)
                if count > 0 && (bytes + size > maxBytes || count >= maxCount) { break }
                count += 1
                bytes += size
            }
            let batch = Array(state.items.prefix(count))
            state.items.removeFirst(count)
            state.bytes -= bytes
            let wake = state.producerBlocked && state.bytes <= highWaterBytes
            if wake { state.producerBlocked = false }
            return (batch, wake)
        }
        if wakeProducer { producerWakeup.signal() }
        return batch
    }

    /// What an item costs in a request: its text once JSON-escaped.
    static func size(of item: Item) -> Int {
        switch item {
        case .message(_, let text): return JSONSize.escaped(text)
        case .rejected, .readFailed: return 0
        }
    }
}

/// The size of a string once JSONEncoder writes it: quotes, `\"`, `\\`, short escapes for
/// `\n \r \t \b \f` and `\u00XX` for other control characters. Used to keep every
/// `send` request under the daemon's 1 MiB line limit.
package enum JSONSize {
    package static func escaped(_ text: String) -> Int {
        var size = 2
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: size += 2
            case 0..<0x20: size += 6
            default: size += 1
            }
        }
        return size + 1  // the comma between array elements
    }
}
