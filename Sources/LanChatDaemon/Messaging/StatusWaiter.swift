import LanChatCore
import LanChatStore

/// Waits until outgoing messages reach `delivered` (or `read`), for `send --wait` and
/// `--wait-read`. The caller subscribes to the events *before* storing the messages, so
/// every change after they were stored `queued` is in the subscription and the wait needs
/// no store read to start; a delivery counts as soon as the peer's ACK arrives (the ACK is
/// the proof; writing `delivered` locally is bookkeeping); and the store is read once more at
/// the deadline, so an event lost to a full buffer cannot turn a success into a timeout.
struct StatusWaiter {
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
        let start = tracker
        let clock = self.clock
        let deadline = clock.monotonic() + timeout
        let finished = await withTaskGroup(of: Tracker?.self) { group in
            group.addTask {
                var tracker = start
                for await event in subscription {
                    tracker.absorb(event)
                    if tracker.outcome.pending.isEmpty { return tracker }
                }
                return nil
            }
            group.addTask {
                try? await clock.sleepUntil(deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let finished { return finished.outcome }
        // Deadline (or a lost event): the store decides.
        tracker.absorb(try await store.messages(ids: Array(tracker.outcome.pending)))
        return tracker.outcome
    }

    /// The bookkeeping of one wait, fed with store rows and events.
    private struct Tracker: Sendable {
        let target: Target
        let waiting: [MessageID: StoredMessage]
        var outcome: Outcome

        init(waiting messages: [StoredMessage], target: Target) {
            self.target = target
            waiting = Dictionary(
                messages.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            outcome = Outcome(pending: Set(messages.map(\.id)), failed: [])
        }

        mutating func absorb(_ rows: [StoredMessage]) {
            for row in rows where outcome.pending.contains(row.id) {
                if target.isReached(by: row.status) {
                    reach(row.id, at: (target == .read ? row.readAt : row.deliveredAt))
                } else if row.status == .failed {
                    outcome.pending.remove(row.id)
                    outcome.failed.insert(row.id)
                }
            }
        }

        mutating func absorb(_ event: DaemonEvent) {
            switch event {
            case .statusChanged(_, let rows, false):
                absorb(rows)
            case .acknowledged(let peer, let stream, let upTo, let at) where target == .delivered:
                for id in outcome.pending {
                    guard let message = waiting[id], message.peer == peer,
                        message.stream == stream, message.seq <= upTo
                    else { continue }
                    reach(id, at: at)
                }
            default:
                break
            }
        }

        private mutating func reach(_ id: MessageID, at time: Int64?) {
            outcome.pending.remove(id)
            if let time { outcome.reachedAt[id] = time }
        }
    }
}
