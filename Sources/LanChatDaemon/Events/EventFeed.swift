import LanChatControl
import LanChatCore
import Synchronization

/// What `watch` streams wait on. They read the durable event log themselves, from their own
/// cursor, so none can miss, repeat or reorder an event, and a slow one lags behind on its
/// own without holding anything of the daemon's. The feed only wakes them when the log has
/// grown (the store's commit hook calls `logGrew`), and hands them the events that are never
/// logged (`peer.typing`), a few at most per watcher: those are worth nothing late.
final class EventFeed: Sendable {
    /// A live-only event, laid over the log at the watcher's current cursor.
    struct LiveEvent: Sendable {
        var type: EventType
        var peer: PeerKey
        var at: Int64
        var typing: Bool?
    }

    /// One `watch` stream's place in the feed.
    final class Watcher: Sendable {
        let wakeup = Wakeup()
        private let live = Mutex<[LiveEvent]>([])
        static let maxLive = 64

        fileprivate func offer(_ event: LiveEvent) {
            live.withLock { queue in
                if queue.count >= Self.maxLive { queue.removeFirst() }
                queue.append(event)
            }
            wakeup.signal()
        }

        /// The live events offered since the last call, oldest first.
        func takeLive() -> [LiveEvent] {
            live.withLock { queue in
                defer { queue.removeAll() }
                return queue
            }
        }
    }

    private let watchers = Mutex<[ObjectIdentifier: Watcher]>([:])

    init() {}

    func register() -> Watcher {
        let watcher = Watcher()
        watchers.withLock { $0[ObjectIdentifier(watcher)] = watcher }
        return watcher
    }

    func unregister(_ watcher: Watcher) {
        _ = watchers.withLock { $0.removeValue(forKey: ObjectIdentifier(watcher)) }
    }

    var watcherCount: Int { watchers.withLock { $0.count } }

    /// The store committed new events. Called on the store's writer queue: only signals.
    func logGrew() {
        for watcher in watchers.withLock({ Array($0.values) }) { watcher.wakeup.signal() }
    }

    func publishLive(_ event: LiveEvent) {
        for watcher in watchers.withLock({ Array($0.values) }) { watcher.offer(event) }
    }
}
