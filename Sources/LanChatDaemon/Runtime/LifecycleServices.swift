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

/// The control socket as a service. Its graceful shutdown drains instead of cancelling
/// (`ControlServer.drain`): what is being answered is answered. What has not ended
/// `drainLimit` after that is cancelled, so a stuck request cannot hold the stop.
struct ControlSocketService: Service, CustomStringConvertible {
    let description = "control socket"
    let server: ControlServer
    let dispatcher: ControlDispatcher
    static let drainLimit: Duration = .seconds(1)

    func run() async throws {
        let server = self.server
        let dispatcher = self.dispatcher
        let draining = Wakeup()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await withGracefulShutdownHandler {
                        try await server.run(dispatcher: dispatcher)
                    } onGracefulShutdown: {
                        server.drain()
                        draining.signal()
                    }
                }
                group.addTask {
                    await draining.wait(until: nil)
                    try await Task.sleep(for: Self.drainLimit)
                }
                // The first to end (the server, drained; or the limit) ends the other.
                try await group.next()
                group.cancelAll()
            }
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
