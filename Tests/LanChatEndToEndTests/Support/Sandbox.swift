import Foundation
import Synchronization
import Testing

/// Runs `body` in a fresh sandbox. When `body` returns, every daemon still running is
/// stopped the way a user stops it (SIGTERM) and must exit 0 within 2 s; whatever happens,
/// the sandbox is then torn down (SIGKILL by PID for what still runs, the directory
/// removed), also when `body` throws or an expectation failed.
func inSandbox(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (Sandbox) async throws -> Void
) async throws {
    let sandbox = try Sandbox()
    defer { sandbox.tearDown() }
    try await body(sandbox)
    await sandbox.stopDaemons(sourceLocation: sourceLocation)
}

/// Everything one test creates: a private scratch directory under /tmp (short enough for
/// Unix socket paths) and every process it starts. `tearDown()` kills each process that
/// still runs, by its PID, and removes the directory; `inSandbox` calls it in `defer`, so
/// it also runs when an expectation fails or an error is thrown.
///
/// Tests never share a sandbox, so they may run in parallel: every daemon has its own
/// data directory, socket and port.
final class Sandbox: Sendable {
    let path: String
    private let children = Mutex<[Adopted]>([])

    private struct Adopted {
        var child: ChildProcess
        /// Set for daemons: their log, shown when they do not stop cleanly.
        var daemonLog: String?
    }

    init() throws {
        var template = Array("/tmp/lce2e-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }
        }
        guard let created else {
            throw SandboxError(description: "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        path = String(cString: created)
    }

    /// A path inside the sandbox (not created).
    func file(_ name: String) -> String { path + "/" + name }

    /// Remembers a process for `stopDaemons()` (when `daemonLog` is set) and `tearDown()`.
    func adopt(_ child: ChildProcess, daemonLog: String? = nil) {
        children.withLock { $0.append(Adopted(child: child, daemonLog: daemonLog)) }
    }

    /// SIGTERM to every daemon still running; each must exit 0 within 2 s (lanchatd(8)).
    func stopDaemons(sourceLocation: SourceLocation = #_sourceLocation) async {
        let daemons = children.withLock { $0.filter { $0.daemonLog != nil } }
        for daemon in daemons where daemon.child.termination == nil {
            daemon.child.send(SIGTERM)
            let termination = await daemon.child.waitForExit(within: DaemonProcess.stopTimeout)
            #expect(
                termination == .exited(0),
                """
                SIGTERM must stop lanchatd with exit 0 within 2 s; got \
                \(termination?.description ?? "still running"): \(daemon.child.commandLine)
                \(DaemonProcess.readLog(daemon.daemonLog ?? ""))
                """, sourceLocation: sourceLocation)
        }
    }

    /// Kills what still runs (SIGKILL, by PID) and deletes the scratch directory.
    func tearDown() {
        let running = children.withLock { $0 }
        for adopted in running { adopted.child.send(SIGKILL) }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The environment of every child: the caller's, without anything that would make a
    /// child reach the developer's real daemon or systemd (socket, notify and journal
    /// variables), with `HOME` and the XDG directories inside the sandbox and no colour.
    var childEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in [
            "LANCHAT_SOCKET", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID",
            "JOURNAL_STREAM", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
        ] {
            environment[name] = nil
        }
        environment["HOME"] = path
        environment["XDG_DATA_HOME"] = path + "/xdg-data"
        environment["XDG_CONFIG_HOME"] = path + "/xdg-config"
        environment["XDG_RUNTIME_DIR"] = path + "/xdg-runtime"
        environment["NO_COLOR"] = "1"
        return environment
    }
}

struct SandboxError: Error, CustomStringConvertible {
    let description: String
}
