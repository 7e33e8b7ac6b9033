/// Polls `condition` every `interval` until it holds; throws when `timeout` passes first.
///
/// "Delivered" and "online" are observed by asking: a `watch` subscriber would make the
/// daemon encode an event for every one of thousands of messages, which costs the daemon
/// more than a cheap question every few milliseconds. Where a figure depends
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
