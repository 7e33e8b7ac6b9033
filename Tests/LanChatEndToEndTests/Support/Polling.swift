/// Re-evaluates `probe` every `interval` until it returns a value or `timeout` has passed
/// since the first try; returns that value, or nil at the deadline. This is how the suite
/// waits for conditions it can only observe from outside (a daemon's answer through
/// `lanchat`, a line in a log file): the wait ends as soon as the condition holds.
func poll<T>(
    timeout: Duration, interval: Duration = .milliseconds(20),
    _ probe: () async throws -> T?
) async rethrows -> T? {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if let value = try await probe() { return value }
        if clock.now >= deadline { return nil }
        try? await Task.sleep(for: interval)
    }
}

/// `poll` for a condition.
func pollUntil(
    timeout: Duration, interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    try await poll(timeout: timeout, interval: interval) { try await condition() ? true : nil }
        ?? false
}
