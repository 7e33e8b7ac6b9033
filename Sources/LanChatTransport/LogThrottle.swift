import Synchronization

/// Lets one log line through per interval and counts the ones it held back, so a stream of
/// hostile connections cannot flood the log (PROTOCOL.md §4.5: one line per failure class).
final class LogThrottle: Sendable {
    private let interval: Duration
    private let state = Mutex<(last: ContinuousClock.Instant?, suppressed: Int)>((nil, 0))

    init(interval: Duration) {
        self.interval = interval
    }

    /// Returns how many lines were held back since the last one when this one may be
    /// logged; nil when it must be held back.
    func shouldLog(now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            if let last = state.last, now - last < interval {
                state.suppressed += 1
                return nil
            }
            let suppressed = state.suppressed
            state = (now, 0)
            return suppressed
        }
    }
}
