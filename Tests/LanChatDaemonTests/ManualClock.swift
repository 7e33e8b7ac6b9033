import Synchronization

@testable import LanChatDaemon

/// A `DaemonClock` that moves only when the test says: `advance(by:)` wakes every sleeper
/// whose deadline has come. A sleep to a deadline already past returns at once, so a test
/// need not know whether the code under test has started sleeping yet.
final class ManualClock: Sendable {
    private struct Sleeper {
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var offset: Duration = .zero
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }

    let base = ContinuousClock.now
    let wallBase: Int64 = 1_700_000_000_000
    private let state = Mutex(State())

    var now: ContinuousClock.Instant { base + state.withLock { $0.offset } }

    /// Sleeps waiting for an `advance`: a test that advances once a deadline is set waits
    /// for its sleeper first (a deadline taken after the advance is not due by it).
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.offset += duration
            let now = base + state.offset
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    var daemonClock: DaemonClock {
        DaemonClock(
            wallMilliseconds: { [self] in
                wallBase + state.withLock { $0.offset }.components.seconds * 1000
            },
            monotonic: { [self] in now },
            sleepUntil: { [self] deadline in try await sleep(until: deadline) })
    }

    private func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if Task.isCancelled || base + state.offset >= deadline { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
