import LanChatCore
import LanChatStore
import ServiceLifecycle

/// Waits until outgoing messages reach `delivered` (or `read`), for `send --wait` and
/// `--wait-read`. The caller subscribes to the events *before* storing the messages, so
/// every change after they were stored `queued` is in the subscription and the wait needs
/// no store read to start; a delivery counts as soon as the peer's ACK arrives (the ACK is
/// the proof; writing `delivered` locally is bookkeeping); and the store is read once more at
/// the deadline, so an event lost to a full buffer cannot turn a success into a timeout.
/// A group message is one copy per member sharing one id: each copy is waited for, and the
/// id counts as reached when every copy has, failed when one has.
struct StatusWaiter {
    /// What its subscription must follow (subscribed before the messages are stored).
    static let followedKinds: Set<DaemonEvent.Kind> = [.statusChanged, .acknowledged]

    enum Target: Sendable {
        case delivered, read

        func isReached(by status: StoredStatus?) -> Bool {
            switch (self, status) {
            case (.delivered, .delivered), (_, .read): true
            default: false
            }
        }
    }

    /// Where the waited-for messages got to.
    struct Outcome: Sendable {
        /// Not delivered (or read) in time.
        var pending: Set<MessageID>
        /// Rejected by the peer: they never will be.
        var failed: Set<MessageID>
        /// When each reached the target, as far as the events said.
        var reachedAt: [MessageID: Int64] = [:]
        /// The daemon began to stop before the wait was over: `pending` are stored and go
        /// out when it runs again, which the answer says (its client must not send them
        /// again; found by QA, where the connection just closed).
        var interrupted = false
    }

    let store: MessageStore
    /// Subscribed to before the messages were stored.
    let subscription: AsyncStream<DaemonEvent>
    /// The deadline runs on the daemon's clock.
    let clock: DaemonClock

    func wait(for messages: [StoredMessage], until target: Target, timeout: Duration)
        async throws -> Outcome
    {
        var tracker = Tracker(waiting: messages, target: target)
        if tracker.isDone { return tracker.outcome }
        let start = tracker
        let clock = self.clock
        let deadline = clock.monotonic() + timeout
        let stopping = Wakeup()
        let (finished, interrupted) = await withGracefulShutdownHandler {
            await withTaskGroup(of: (Tracker?, stopping: Bool).self) { group in
                group.addTask {
                    var tracker = start
                    for await event in subscription {
                        tracker.absorb(event)
                        if tracker.isDone { return (tracker, false) }
                    }
                    return (nil, false)
                }
                group.addTask {
                    try? await clock.sleepUntil(deadline)
                    return (nil, false)
                }
                // The control socket's graceful shutdown (a task-local signal, so outside a
                // service nothing ever comes): answer now, while the answer can be written.
                group.addTask {
                    await stopping.wait(until: nil)
                    return (nil, !Task.isCancelled)
                }
                let first = await group.next() ?? (nil, false)
                group.cancelAll()
                return first
            }
        } onGracefulShutdown: {
            stopping.signal()
        }
        if let finished { return finished.outcome }
        // Deadline, stop (or a lost event): the store decides.
        tracker.absorb(try await store.outgoing(tracker.pending.map { ($0.peer, $0.id) }))
        var outcome = tracker.outcome
        outcome.interrupted = interrupted
        return outcome
    }

    /// The bookkeeping of one wait, fed with store rows and events, per copy (a group
    /// message's copies share their id, one per member).
    private struct Tracker: Sendable {
        struct Copy: Hashable, Sendable {
            let peer: PeerKey
            let id: MessageID
        }

        let target: Target
        let waiting: [Copy: StoredMessage]
        var pending: Set<Copy>
        var failed: Set<Copy> = []
        var reachedAt: [MessageID: Int64] = [:]

        init(waiting messages: [StoredMessage], target: Target) {
            self.target = target
            waiting = Dictionary(
                messages.map { (Copy(peer: $0.peer, id: $0.id), $0) },
                uniquingKeysWith: { first, _ in first })
            pending = Set(waiting.keys)
            // A group copy may be stored failed (a member that cannot take it).
            absorb(messages)
        }

        var isDone: Bool { pending.isEmpty }

        /// By id: pending while a copy is, failed when one failed, reached at the last copy's
        /// time.
        var outcome: Outcome {
            let failedIDs = Set(failed.map(\.id))
            return Outcome(
                pending: Set(pending.map(\.id)).subtracting(failedIDs), failed: failedIDs,
                reachedAt: reachedAt)
        }

        mutating func absorb(_ rows: [StoredMessage]) {
            for row in rows {
                let copy = Copy(peer: row.peer, id: row.id)
                guard pending.contains(copy) else { continue }
                if target.isReached(by: row.status) {
                    reach(copy, at: (target == .read ? row.readAt : row.deliveredAt))
                } else if row.status == .failed {
                    pending.remove(copy)
                    failed.insert(copy)
                }
            }
        }

        mutating func absorb(_ event: DaemonEvent) {
            switch event {
            case .statusChanged(_, let rows, false):
                absorb(rows)
            case .acknowledged(let peer, let stream, let upTo, let at) where target == .delivered:
                for copy in pending where copy.peer == peer {
                    guard let message = waiting[copy], message.stream == stream,
                        message.seq <= upTo
                    else { continue }
                    reach(copy, at: at)
                }
            default:
                break
            }
        }

        private mutating func reach(_ copy: Copy, at time: Int64?) {
            pending.remove(copy)
            if let time { reachedAt[copy.id] = max(reachedAt[copy.id] ?? time, time) }
        }
    }
}
