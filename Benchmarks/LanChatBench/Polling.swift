/// Polls `condition` every `interval` until it holds; throws when `timeout` passes first.
///
/// The control API has no push notification the client library exposes (no `watch` yet),
/// so "delivered", "online" and "queued = 0" are observed by asking. Where a figure depends
/// on *when* something happened, it reads the daemon's own millisecond stamps
/// (`deliveredAt`) instead of the moment the poll noticed, so the interval costs precision
/// only in the notice, never in the figure.
func waitUntil(
    _ description: String, timeout: Duration, interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return }
        guard ContinuousClock.now < deadline else {
            throw BenchError.failed("timed out after \(timeout) waiting for: \(description)")
        }
        try await Task.sleep(for: interval)
    }
}
