import LanChatCore
import Synchronization

/// Lets one log line through per interval and counts the ones it held back, so a stream of
/// hostile connections cannot flood the log (PROTOCOL.md §4.5: one line per failure class).
/// `LogLineBudget` behind a lock: the listener asks from every event loop.
final class LogThrottle: Sendable {
    private let budget: Mutex<LogLineBudget>

    init(interval: Duration) {
        budget = Mutex(LogLineBudget(interval: interval))
    }

    /// Returns how many lines were held back since the last one when this one may be
    /// logged; nil when it must be held back.
    func shouldLog(now: ContinuousClock.Instant = .now) -> Int? {
        budget.withLock { $0.take(at: now) }
    }
}
