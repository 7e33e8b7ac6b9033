import Foundation
import Glibc
import LanChatClient
import LanChatControl

/// The release `lanchatd` as a child process, as a user runs it: `--no-mdns`, static peers on
/// 127.0.0.1, its own data directory and socket. Stopped with SIGTERM to its own PID (and
/// SIGKILL to that PID if it does not exit within 5 s); the benchmark ends nothing else.
///
/// Used from one task at a time.
final class DaemonProcess: @unchecked Sendable {
    let name: String
    let socketPath: String
    let client: ControlClient
    private let process: Process
    /// Filled in by `start` from the daemon's `status`.
    private(set) var id = ""
    private(set) var port: UInt16 = 0

    private init(name: String, socketPath: String, process: Process) {
        self.name = name
        self.socketPath = socketPath
        self.process = process
        self.client = ControlClient(socketPath: socketPath)
    }

    var pid: Int32 { process.processIdentifier }

    /// Starts `lanchatd` and returns once its control socket answers `status`.
    static func start(
        binary: String, name: String, in directory: String, peerPorts: [UInt16] = []
    ) async throws -> DaemonProcess {
        let dataDirectory = directory + "/" + name
        let socketPath = directory + "/" + name + ".sock"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments =
            [
                "--name", name, "--data-dir", dataDirectory, "--socket", socketPath, "--no-mdns",
                "--log-level", "warning",
            ] + peerPorts.flatMap { ["--peer", "127.0.0.1:\($0)"] }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchError.setup("cannot start \(binary): \(error)")
        }
        let child = DaemonProcess(name: name, socketPath: socketPath, process: process)
        do {
            var status: StatusResult?
            try await waitUntil("\(name) (lanchatd) answers on its socket", timeout: .seconds(20)) {
                guard process.isRunning else {
                    throw BenchError.setup(
                        "lanchatd \(name) exited with status \(process.terminationStatus)")
                }
                status = try? await child.client.status()
                return status != nil
            }
            guard let status, let port = status.listening.first.flatMap(Self.port(of:)) else {
                throw BenchError.setup("lanchatd \(name) reports no listening port")
            }
            child.id = status.id
            child.port = port
        } catch {
            await child.stop()
            throw error
        }
        return child
    }

    /// `0.0.0.0:1234`, `[::]:1234` → 1234.
    static func port(of address: String) -> UInt16? {
        address.split(separator: ":").last.flatMap { UInt16($0) }
    }

    /// SIGTERM (the clean stop), then SIGKILL after 5 s; returns once the process is gone.
    func stop() async {
        client.close()
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning {
            kill(pid, SIGKILL)
            while process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        }
    }
}
