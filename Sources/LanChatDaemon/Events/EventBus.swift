import Synchronization

/// Broadcasts daemon events to every subscriber. A subscriber that falls behind loses the
/// oldest events beyond its buffer rather than slowing the daemon; subscribers that must not
/// miss anything re-read the store (the store is the truth, events are hints).
final class EventBus: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<DaemonEvent>.Continuation
    }

    private let subscribers = Mutex<[UInt64: Subscriber]>([:])
    private let nextID = Atomic<UInt64>(0)
    let bufferSize: Int

    init(bufferSize: Int = 4096) {
        self.bufferSize = bufferSize
    }

    /// A stream of every event published from now on. It ends when the consumer stops
    /// iterating (its task is cancelled or it drops the stream).
    func subscribe() -> AsyncStream<DaemonEvent> {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: DaemonEvent.self, bufferingPolicy: .bufferingNewest(bufferSize))
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = Subscriber(continuation: continuation) }
        return stream
    }

    func publish(_ event: DaemonEvent) {
        let targets = subscribers.withLock { Array($0.values) }
        for subscriber in targets {
            subscriber.continuation.yield(event)
        }
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }
}
