import Dispatch
import LanChatClient
import LanChatControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads `send --lines` input: splits it into lines as they arrive and classifies each one
/// (sent, skipped because blank, or rejected with a reason) into a `LineBatchQueue`.
///
/// Runs on its own dispatch queue because `read` blocks until the producer (`journalctl -f`)
/// writes; never on a Swift-concurrency thread. A line over the message limit is not kept in
/// memory: its bytes are counted and dropped until its newline.
package struct LineClassifier {
    package let maxBytes: Int
    private var current: [UInt8] = []
    private var currentOversize = 0
    private var lineNumber = 0

    package init(maxBytes: Int = MessageText.maxBytes) {
        self.maxBytes = maxBytes
    }

    /// Feeds a chunk; returns the items for the lines it completed, in order.
    package mutating func feed(_ chunk: ArraySlice<UInt8>) -> [LineBatchQueue.Item] {
        var items: [LineBatchQueue.Item] = []
        var rest = chunk
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            accumulate(rest[rest.startIndex..<newline])
            if let item = endLine() { items.append(item) }
            rest = rest[(newline + 1)...]
        }
        accumulate(rest)
        return items
    }

    /// End of input: a last line without a newline still counts.
    package mutating func finish() -> [LineBatchQueue.Item] {
        guard !current.isEmpty || currentOversize > 0 else { return [] }
        return endLine().map { [$0] } ?? []
    }

    private mutating func accumulate(_ bytes: ArraySlice<UInt8>) {
        if currentOversize > 0 {
            currentOversize += bytes.count
        } else if current.count + bytes.count > maxBytes + 1 {  // + 1: room for a CR
            currentOversize = current.count + bytes.count
            current = []
        } else {
            current.append(contentsOf: bytes)
        }
    }

    private mutating func endLine() -> LineBatchQueue.Item? {
        lineNumber += 1
        defer {
            current = []
            currentOversize = 0
        }
        if current.last == UInt8(ascii: "\r") { current.removeLast() }
        if currentOversize > 0 || current.count > maxBytes {
            let size = max(currentOversize, current.count)
            return .rejected(
                line: lineNumber,
                reason: "line \(lineNumber) is \(MessageText.grouped(size)) bytes; the limit is "
                    + "\(MessageText.grouped(maxBytes)) bytes")
        }
        guard let text = String(validating: current, as: UTF8.self) else {
            return .rejected(line: lineNumber, reason: "line \(lineNumber) is not valid UTF-8")
        }
        if text.containsNUL {
            return .rejected(line: lineNumber, reason: "line \(lineNumber) contains U+0000 (NUL)")
        }
        if text.isBlankText { return nil }
        return .message(line: lineNumber, text: text)
    }
}

package enum LineReader {
    /// Starts reading `fd` on a dispatch queue until end of file, a read error or until the
    /// queue is abandoned, then finishes the queue.
    package static func start(fd: Int32, into queue: LineBatchQueue) {
        DispatchQueue(label: "lanchat.stdin.lines").async {
            run(fd: fd, into: queue)
        }
    }

    private static func run(fd: Int32, into queue: LineBatchQueue) {
        defer { queue.finish() }
        if fd == 0 && standardInputWasClosed {
            queue.push(.readFailed(standardInputClosedReason))
            return
        }
        var classifier = LineClassifier()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                for item in classifier.feed(chunk[0..<count]) where !queue.push(item) {
                    return
                }
            } else if count == 0 {
                for item in classifier.finish() { queue.push(item) }
                return
            } else if errno != EINTR {
                queue.push(
                    .readFailed("cannot read standard input: \(errnoDescription(errno))"))
                return
            }
        }
    }
}
