import Synchronization

/// A one-consumer wake-up call: `wait(until:)` returns when `signal()` is called (now or
/// earlier, since the last wait) or when the deadline passes, whichever comes first. Signals
/// do not accumulate: several before a wait wake it once.
final class Wakeup: Sendable {
    private enum State {
        case idle
        case signalled
        case waiting(CheckedContinuation<Void, Never>)
    }

    private let state = Mutex<State>(.idle)

    init() {}

    func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            switch state {
            case .idle:
                state = .signalled
                return nil
            case .signalled:
                return nil
            case .waiting(let continuation):
                state = .idle
                return continuation
            }
        }
        waiter?.resume()
    }

    /// Waits for a signal, or until `deadline` by `clock` (nil: no deadline).
    func wait(until deadline: ContinuousClock.Instant?, clock: DaemonClock = .system) async {
        let alreadySignalled = state.withLock { state in
            guard case .signalled = state else { return false }
            state = .idle
            return true
        }
        guard !alreadySignalled else { return }
        // Without a deadline the caller's own task waits: a child task and its group, kept
        // for as long as the wait lasts, cost memory in every idle loop (three per peer
        // link), docs/benchmarks.md figure 7.
        guard let deadline else { return await waitForSignal() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForSignal() }
            group.addTask { try? await clock.sleepUntil(deadline) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForSignal() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { state in
                    switch state {
                    case .signalled:
                        state = .idle
                        return true
                    case .idle:
                        // A cancellation that raced ahead of us found nothing to resume.
                        if Task.isCancelled { return true }
                        state = .waiting(continuation)
                        return false
                    case .waiting:
                        return true
                    }
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard case .waiting(let continuation) = state else { return nil }
                state = .idle
                return continuation
            }
            waiter?.resume()
        }
    }
}
