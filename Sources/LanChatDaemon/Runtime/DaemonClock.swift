import Foundation

/// Time as the daemon reads it: stored and shown timestamps, monotonic ages and deadlines, and
/// sleeping until a deadline. Injected everywhere the daemon reads time, so tests can fix it
/// or drive timers without waiting.
struct DaemonClock: Sendable {
    /// Milliseconds since the Unix epoch.
    let wallMilliseconds: @Sendable () -> Int64
    /// For ages, deadlines and backoff; never goes back.
    let monotonic: @Sendable () -> ContinuousClock.Instant
    /// Returns at `deadline` (by `monotonic`), or throws when the task is cancelled.
    let sleepUntil: @Sendable (ContinuousClock.Instant) async throws -> Void

    static let system = DaemonClock(
        wallMilliseconds: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
        monotonic: { .now },
        sleepUntil: { try await Task.sleep(until: $0, clock: .continuous) })
}
