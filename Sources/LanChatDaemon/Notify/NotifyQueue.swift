import Synchronization

/// What the notify command has yet to run for, and how many runs are under way: one owner
/// (`MessageNotifier`) behind one lock, so a start and an end never count past each other.
///
/// Bounded: a burst of thousands of messages must not become an hour of late desktop
/// notifications (found by QA), so beyond `limit` waiting the oldest are dropped, counted
/// for one log line once the burst has drained.
final class NotifyQueue: Sendable {
    struct Item: Sendable {
        let variables: [String: String]
    }

    private struct State {
        var waiting: [Item] = []
        var running = 0
        var dropped = 0
    }

    let limit: Int
    let maxRunning: Int
    private let state = Mutex(State())

    init(limit: Int, maxRunning: Int) {
        self.limit = limit
        self.maxRunning = maxRunning
    }

    /// Keeps `limit` waiting beyond what the free run slots take at once (found by QA: a
    /// burst arriving with three slots free dropped three more than "at most 32 wait").
    func append(_ items: [Item]) {
        state.withLock { state in
            state.waiting.append(contentsOf: items)
            let excess = state.waiting.count - limit - max(0, maxRunning - state.running)
            if excess > 0 {
                state.waiting.removeFirst(excess)
                state.dropped += excess
            }
        }
    }

    /// The next item to run, counted as running, when fewer than `maxRunning` run.
    func startNext() -> Item? {
        state.withLock { state in
            guard state.running < maxRunning, !state.waiting.isEmpty else { return nil }
            state.running += 1
            return state.waiting.removeFirst()
        }
    }

    func finished() {
        state.withLock { $0.running -= 1 }
    }

    /// Forgets what waits (the command was turned off: off means off).
    func discardWaiting() {
        state.withLock { $0.waiting.removeAll() }
    }

    /// The number dropped since the last call, once nothing waits any more (a burst is
    /// over); nil while items wait or none were dropped.
    func takeDroppedAfterBurst() -> Int? {
        state.withLock { state in
            guard state.waiting.isEmpty, state.dropped > 0 else { return nil }
            defer { state.dropped = 0 }
            return state.dropped
        }
    }

    var runningCount: Int { state.withLock { $0.running } }
    var waitingCount: Int { state.withLock { $0.waiting.count } }
}
