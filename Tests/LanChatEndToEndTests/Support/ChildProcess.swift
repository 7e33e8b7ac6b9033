import Foundation
import Synchronization

/// How a child process ended.
enum Termination: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    var description: String {
        switch self {
        case .exited(let status): "exit \(status)"
        case .signalled(let signal): "killed by signal \(signal)"
        }
    }
}

/// One program a test started (a daemon or a `lanchat` run), with its standard streams
/// already redirected by the caller. Its end is an event (`terminationHandler`, called on
/// Foundation's monitoring thread) that `waitForExit(within:)` awaits, so no test polls or
/// sleeps for a process to end.
///
/// Signals go to this one PID, and only while it has not been reaped, so a test never
/// signals a process it did not start (and never a recycled PID).
final class ChildProcess: Sendable {
    let pid: Int32
    let commandLine: String
    private let process: Process
    private let latch: ExitLatch

    private init(process: Process, commandLine: String, latch: ExitLatch) {
        self.process = process
        self.commandLine = commandLine
        self.pid = process.processIdentifier
        self.latch = latch
    }

    /// Starts `executable` with exactly `environment`, its streams on the given handles
    /// (`nil`: `/dev/null`).
    static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String],
        standardInput: FileHandle? = nil, standardOutput: FileHandle? = nil,
        standardError: FileHandle? = nil
    ) throws -> ChildProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = standardInput ?? FileHandle.nullDevice
        process.standardOutput = standardOutput ?? FileHandle.nullDevice
        process.standardError = standardError ?? FileHandle.nullDevice
        let latch = ExitLatch()
        process.terminationHandler = { finished in
            latch.fire(
                finished.terminationReason == .uncaughtSignal
                    ? .signalled(finished.terminationStatus)
                    : .exited(finished.terminationStatus))
        }
        try process.run()
        return ChildProcess(
            process: process, commandLine: ([executable] + arguments).joined(separator: " "),
            latch: latch)
    }

    /// How it ended, or nil while it runs.
    var termination: Termination? { latch.value }

    /// Waits for the end, at most `timeout`; nil if it still runs then.
    func waitForExit(within timeout: Duration) async -> Termination? {
        await latch.wait(within: timeout)
    }

    /// Sends `signal` if the process has not ended yet.
    func send(_ signal: Int32) {
        guard latch.value == nil, process.isRunning else { return }
        kill(pid, signal)
    }
}

/// A value set once (the termination) that any number of tasks await with a deadline.
final class ExitLatch: Sendable {
    private struct State {
        var value: Termination?
        var waiters: [Int: CheckedContinuation<Termination?, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    var value: Termination? { state.withLock { $0.value } }

    func fire(_ termination: Termination) {
        let waiters = state.withLock { state -> [CheckedContinuation<Termination?, Never>] in
            guard state.value == nil else { return [] }
            state.value = termination
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: termination) }
    }

    func wait(within timeout: Duration) async -> Termination? {
        await withCheckedContinuation { continuation in
            let waiter = state.withLock { state -> Int? in
                if state.value != nil { return nil }
                let id = state.nextWaiter
                state.nextWaiter += 1
                state.waiters[id] = continuation
                return id
            }
            guard let waiter else {
                continuation.resume(returning: value)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(waiter)
            }
        }
    }

    private func expire(_ waiter: Int) {
        let continuation = state.withLock { $0.waiters.removeValue(forKey: waiter) }
        continuation?.resume(returning: nil)
    }
}
