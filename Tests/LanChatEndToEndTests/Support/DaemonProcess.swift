import Foundation
import LanChatTestSupport
import Testing

/// A running `lanchatd` started by a test: its own data directory, control socket and TCP
/// port inside the test's sandbox, its stderr captured to a log file. `start` returns once
/// `lanchat status` answers (exit 0), so the store, the listener and the socket are up.
///
/// The sandbox that started it kills it in `tearDown()` if the test did not stop it.
final class DaemonProcess: Sendable {
    let name: String
    let dataDirectory: String
    let socket: String
    let logPath: String
    let child: ChildProcess
    let sandbox: Sandbox
    /// This node as `lanchat status --json` showed it once ready.
    let status: StatusResult

    /// How long a daemon may take to answer `lanchat status` after it was started.
    static let readinessTimeout: Duration = .seconds(10)
    /// PRODUCT.md §3: SIGTERM/SIGINT stop the daemon within 2 s.
    static let stopTimeout: Duration = .seconds(2)

    private init(
        name: String, dataDirectory: String, socket: String, logPath: String,
        child: ChildProcess, sandbox: Sandbox, status: StatusResult
    ) {
        self.name = name
        self.dataDirectory = dataDirectory
        self.socket = socket
        self.logPath = logPath
        self.child = child
        self.sandbox = sandbox
        self.status = status
    }

    var id: String { status.id }
    var keyTag: String { status.keyTag }

    /// The bound TCP port, read from `status --json` → `listening`.
    var port: UInt16 {
        get throws {
            guard let port = status.port else {
                throw SandboxError(description: "\(name): no port in \(status.listening)")
            }
            return port
        }
    }

    /// Starts `lanchatd --name NAME` on `port` (0: the daemon picks one) with the given
    /// `--peer` values and waits until it answers. `dataDirectory` defaults to NAME-data in
    /// the sandbox, so starting the same name again reuses the node's identity and store.
    /// `nameOption` false leaves `--name` out (a `--config` file names the node, and a reload
    /// can rename it: the flag would win over the file).
    static func start(
        _ name: String, in sandbox: Sandbox, port: UInt16 = 0, peers: [String] = [],
        dataDirectory: String? = nil, socket: String? = nil, extraArguments: [String] = [],
        nameOption: Bool = true
    ) async throws -> DaemonProcess {
        let dataDirectory = dataDirectory ?? sandbox.file("\(name)-data")
        let socket = socket ?? sandbox.file("\(name).sock")
        let logPath = sandbox.file("\(name)-\(UUID().uuidString.prefix(6)).log")
        var arguments = nameOption ? ["--name", name] : []
        arguments += [
            "--data-dir", dataDirectory, "--socket", socket, "--port", "\(port)",
        ]
        for peer in peers { arguments += ["--peer", peer] }
        arguments += extraArguments
        let child = try launchRaw(arguments, in: sandbox, logPath: logPath)
        let status = try await waitUntilReady(child, socket: socket, logPath: logPath, in: sandbox)
        return DaemonProcess(
            name: name, dataDirectory: dataDirectory, socket: socket, logPath: logPath,
            child: child, sandbox: sandbox, status: status)
    }

    /// Starts `lanchatd ARGUMENTS` without waiting for anything (for daemons that must fail
    /// to start); its stderr goes to `logPath`.
    static func launchRaw(_ arguments: [String], in sandbox: Sandbox, logPath: String) throws
        -> ChildProcess
    {
        let binary = try Binaries.lanchatd()
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw SandboxError(description: "cannot create \(logPath)")
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        let child = try ChildProcess.launch(
            binary, arguments, environment: sandbox.childEnvironment, standardError: log)
        sandbox.adopt(child, daemonLog: logPath)
        return child
    }

    private static func waitUntilReady(
        _ child: ChildProcess, socket: String, logPath: String, in sandbox: Sandbox
    ) async throws -> StatusResult {
        let ready = try await poll(timeout: readinessTimeout, interval: .milliseconds(25)) {
            () async throws -> StatusResult? in
            if let ended = child.termination {
                throw SandboxError(
                    description: "lanchatd ended (\(ended)) before it was ready: "
                        + "\(child.commandLine)\n\(Self.readLog(logPath))")
            }
            let result = try await sandbox.lanchat(["--socket", socket, "status", "--json"])
            return result.status == 0 ? try result.decoded(StatusResult.self) : nil
        }
        guard let ready else {
            child.send(SIGKILL)
            throw SandboxError(
                description: "lanchatd did not answer `lanchat status` within "
                    + "\(readinessTimeout): \(child.commandLine)\n\(Self.readLog(logPath))")
        }
        return ready
    }

    // MARK: Using it

    /// `lanchat --socket SOCKET ARGUMENTS…` against this daemon.
    func lanchat(_ arguments: [String], input: Data? = nil, launcher: [String] = [])
        async throws -> CommandResult
    {
        try await sandbox.lanchat(
            ["--socket", socket] + arguments, input: input, launcher: launcher)
    }

    /// `lanchat … ARGUMENTS --json`, which must exit 0, decoded.
    func json<T: Decodable>(
        _ type: T.Type = T.self, _ arguments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> T {
        try await sandbox.lanchatJSON(
            T.self, socket: socket, arguments, sourceLocation: sourceLocation)
    }

    /// Everything the daemon wrote to stderr so far.
    var log: String { Self.readLog(logPath) }

    static func readLog(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    /// The log lines containing every one of `fragments`.
    func logLines(containing fragments: String...) -> [Substring] {
        log.split(separator: "\n").filter { line in fragments.allSatisfy { line.contains($0) } }
    }

    /// Waits until a log line contains every one of `fragments`; returns the first such line.
    func awaitLogLine(_ fragments: String..., timeout: Duration = .seconds(5)) async
        -> Substring?
    {
        await poll(timeout: timeout) {
            log.split(separator: "\n").first { line in
                fragments.allSatisfy { line.contains($0) }
            }
        }
    }

    /// The peer as `who --all --json` lists it, or nil.
    func peer(_ id: String) async throws -> PeerObject? {
        try await json(WhoResult.self, ["who", "--all"]).peers.first { $0.id == id }
    }

    /// Waits until `who --json` lists the peer with `id` as online.
    /// Waits until the peer `id` is online and its HELLO told us its name, so that a PEER
    /// argument naming it resolves: a session is online as soon as it is authenticated, and
    /// the name arrives with the HELLO a moment later.
    func awaitOnline(_ id: String, timeout: Duration = .seconds(5)) async throws -> Bool {
        try await pollUntil(timeout: timeout) {
            try await json(WhoResult.self, ["who"]).peers.contains {
                $0.id == id && $0.presence == "online" && !$0.name.isEmpty
            }
        }
    }

    /// Waits until the outgoing message `messageID` to `peer` has `status`; returns it.
    func awaitMessage(
        _ messageID: String, to peer: String, status: String, timeout: Duration = .seconds(5)
    ) async throws -> MessageObject? {
        try await poll(timeout: timeout, interval: .milliseconds(5)) {
            try await json(HistoryResult.self, ["history", peer]).messages.first {
                $0.id == messageID && $0.status == status
            }
        }
    }

    /// How many file descriptors the daemon holds open now (`/proc/PID/fd`).
    var openFileDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/fd").count)
            ?? -1
    }

    // MARK: Stopping it

    /// Sends `signal` (SIGTERM by default) and waits up to `within` for the end; nil if it
    /// still runs then (the sandbox kills it at tear-down).
    func stop(_ signal: Int32 = SIGTERM, within timeout: Duration = stopTimeout) async
        -> Termination?
    {
        child.send(signal)
        return await child.waitForExit(within: timeout)
    }
}

extension DaemonProcess {
    /// `lanchat watch --json --since 0` on this daemon: its whole event log, then its live
    /// events, one JSON object a line. Nil if it could not be started; the caller kills it.
    func replayingWatch() throws -> RunningChild? {
        RunningChild(
            arguments: [
                try Binaries.lanchat(), "--socket", socket, "watch", "--json", "--since", "0",
            ])
    }
}
