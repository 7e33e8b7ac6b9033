import Synchronization

/// Broadcasts daemon events to the subscribers of their kind. A subscriber that falls behind
/// loses the oldest events beyond its buffer rather than slowing the daemon; subscribers that
/// must not miss anything re-read the store (the store is the truth, events are hints).
///
/// Subscriptions name the kinds they follow: the typing indicator and the notify command
/// listen for the whole life of the daemon, and if they received (and woke for) every status
/// change, publishers could never tell that nobody wants one (`isFollowed`), which is what
/// lets the delivery-mark writer skip reading back the rows it marked.
final class EventBus: Sendable {
    private struct Subscriber {
        let kinds: Set<DaemonEvent.Kind>
        let continuation: AsyncStream<DaemonEvent>.Continuation
    }

    private let subscribers = Mutex<[UInt64: Subscriber]>([:])
    private let nextID = Atomic<UInt64>(0)
    let bufferSize: Int

    init(bufferSize: Int = 4096) {
        self.bufferSize = bufferSize
    }

    /// A stream of the events of `kinds` published from now on. It ends when the consumer
    /// stops iterating (its task is cancelled or it drops the stream).
    func subscribe(to kinds: Set<DaemonEvent.Kind> = Set(DaemonEvent.Kind.allCases))
        -> AsyncStream<DaemonEvent>
    {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: DaemonEvent.self, bufferingPolicy: .bufferingNewest(bufferSize))
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = Subscriber(kinds: kinds, continuation: continuation) }
        return stream
    }

    func publish(_ event: DaemonEvent) {
        let kind = event.kind
        let targets = subscribers.withLock { $0.values.filter { $0.kinds.contains(kind) } }
        for subscriber in targets {
            subscriber.continuation.yield(event)
        }
    }

    /// Whether any subscriber follows `kind` now.
    func isFollowed(_ kind: DaemonEvent.Kind) -> Bool {
        subscribers.withLock { $0.values.contains { $0.kinds.contains(kind) } }
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }
}
