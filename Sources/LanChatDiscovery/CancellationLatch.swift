import Synchronization

/// Parks one task until it is cancelled, without polling: `set` stores the continuation,
/// `fire` (from a cancellation handler) resumes it, in whichever order they come.
final class CancellationLatch: Sendable {
    private enum State {
        case armed
        case waiting(CheckedContinuation<Void, Never>)
        case fired
    }

    private let state = Mutex<State>(.armed)

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state -> Bool in
            switch state {
            case .armed:
                state = .waiting(continuation)
                return false
            case .waiting, .fired:
                return true
            }
        }
        if resumeNow { continuation.resume() }
    }

    func fire() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            defer { state = .fired }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        waiter?.resume()
    }
}
