import LanChatCore
import LanChatStore

/// Waits until outgoing messages reach `delivered` (or `read`), for `send --wait` and
/// `--wait-read`. Subscribes before reading the current statuses, so a change that happens
/// in between is not missed; and reads the store once more at the deadline, so an event lost
/// to a full buffer cannot turn a delivered message into a timeout.
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

    let store: MessageStore
    let events: EventBus

    /// Returns the ids that did not reach the target in time (empty: all did), and those that
    /// failed on the way (they never will).
    func wait(for ids: [MessageID], until target: Target, timeout: Duration) async throws
        -> (pending: Set<MessageID>, failed: Set<MessageID>)
    {
        let subscription = events.subscribe()
        var pending = Set(ids)
        var failed = Set<MessageID>()
        func absorb(_ messages: [StoredMessage]) {
            for message in messages where pending.contains(message.id) {
                if target.isReached(by: message.status) {
                    pending.remove(message.id)
                } else if message.status == .failed {
                    pending.remove(message.id)
                    failed.insert(message.id)
                }
            }
        }
        absorb(try await store.messages(ids: ids))
        if pending.isEmpty { return (pending, failed) }
        let watching = pending
        let outcome = await withTaskGroup(of: (Set<MessageID>, Set<MessageID>)?.self) { group in
            group.addTask {
                var pending = watching
                var failed = Set<MessageID>()
                for await event in subscription {
                    guard case .statusChanged(_, let messages, false) = event else { continue }
                    for message in messages where pending.contains(message.id) {
                        if target.isReached(by: message.status) {
                            pending.remove(message.id)
                        } else if message.status == .failed {
                            pending.remove(message.id)
                            failed.insert(message.id)
                        }
                    }
                    if pending.isEmpty { return (pending, failed) }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let (stillPending, newlyFailed) = outcome, stillPending.isEmpty {
            return ([], failed.union(newlyFailed))
        }
        // Deadline (or a lost event): the store decides.
        absorb(try await store.messages(ids: Array(pending)))
        return (pending, failed)
    }
}
