import ServiceLifecycle

/// Runs `body` as a service that is cancelled when graceful shutdown begins.
struct TaskService: Service, CustomStringConvertible {
    let description: String
    let body: @Sendable () async throws -> Void

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await body() }
        } catch  where Task.isCancelled || error is CancellationError {
            // Cancelled because the daemon is stopping: a normal end, not a failure.
        }
    }
}

/// Waits for graceful shutdown, then runs `onShutdown` (e.g. CLOSE every session) while the
/// services listed before it are still up. Put it last: the group shuts services down in
/// reverse order.
struct ShutdownService: Service, CustomStringConvertible {
    let description: String
    let onShutdown: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await onShutdown()
    }
}
