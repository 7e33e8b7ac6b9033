import Foundation
import LanChatClient
import LanChatControl
import LanChatCore
import LanChatDaemon
import Logging

/// A whole daemon in the benchmark's process (the `LanChatDaemon` library, as `lanchatd`
/// runs it), listening on 127.0.0.1 with its own data directory and control socket, and
/// driven through the real control client. Restartable on the same data directory and port.
///
/// Used from one task at a time (the figure that owns it).
final class InProcessNode: @unchecked Sendable {
    let name: String
    let dataDirectory: String
    let socketPath: String
    private let peers: [StaticPeer]
    private(set) var daemon: Daemon
    private var runTask: Task<Void, any Error>
    private(set) var client: ControlClient

    private init(
        name: String, dataDirectory: String, socketPath: String, peers: [StaticPeer],
        daemon: Daemon, runTask: Task<Void, any Error>
    ) {
        self.name = name
        self.dataDirectory = dataDirectory
        self.socketPath = socketPath
        self.peers = peers
        self.daemon = daemon
        self.runTask = runTask
        self.client = ControlClient(socketPath: socketPath)
    }

    /// Starts `name` under `directory`, dialling `peers` (static peers on 127.0.0.1).
    static func start(_ name: String, peerPorts: [UInt16] = [], in directory: String)
        async throws -> InProcessNode
    {
        let peers = peerPorts.map { StaticPeer(endpoint: Endpoint(host: "127.0.0.1", port: $0)) }
        let dataDirectory = directory + "/" + name
        let socketPath = directory + "/" + name + ".sock"
        let (daemon, task) = try await launch(
            name: name, dataDirectory: dataDirectory, socketPath: socketPath, peers: peers, port: 0)
        return InProcessNode(
            name: name, dataDirectory: dataDirectory, socketPath: socketPath, peers: peers,
            daemon: daemon, runTask: task)
    }

    private static func launch(
        name: String, dataDirectory: String, socketPath: String, peers: [StaticPeer],
        port: UInt16
    ) async throws -> (Daemon, Task<Void, any Error>) {
        var configuration = DaemonConfiguration(
            name: name, dataDirectory: dataDirectory, socketPath: socketPath)
        configuration.listenHost = "127.0.0.1"
        configuration.port = Int(port)
        configuration.mdns = false
        configuration.staticPeers = peers
        let daemon = try await Daemon.start(
            configuration, logger: benchLogger, environment: [:], handleSignals: false)
        let task = Task { try await daemon.run() }
        return (daemon, task)
    }

    var id: String { daemon.identityKey.id }
    var port: UInt16 { daemon.port }

    /// Stops cleanly (CLOSE to its peers) and waits until the daemon has released its
    /// directory.
    func stop() async {
        await daemon.stop()
        _ = try? await runTask.value
        client.close()
    }

    /// Starts again on the same directory, key, store and port. Returns when the daemon is
    /// ready (listener, store and socket up: what `lanchatd` reports as READY).
    func restart() async throws {
        (daemon, runTask) = try await Self.launch(
            name: name, dataDirectory: dataDirectory, socketPath: socketPath, peers: peers,
            port: daemon.port)
        client = ControlClient(socketPath: socketPath)
    }

    /// Online, and known by name (the name arrives in HELLO, just after the session is up).
    func sees(_ peerID: String, named peerName: String) async -> Bool {
        let peers = (try? await client.who(WhoParams(all: true)).peers) ?? []
        return peers.contains { $0.id == peerID && $0.presence == .online && $0.name == peerName }
    }
}

/// Two in-process daemons, `bob` dialling `alice`, online to each other.
struct InProcessPair {
    let alice: InProcessNode
    let bob: InProcessNode

    static func start(in directory: String) async throws -> InProcessPair {
        try makePrivateDirectory(directory)
        let alice = try await InProcessNode.start("alice", in: directory)
        let bob = try await InProcessNode.start("bob", peerPorts: [alice.port], in: directory)
        try await waitUntil("alice and bob see each other online", timeout: .seconds(20)) {
            let aliceSees = await alice.sees(bob.id, named: bob.name)
            let bobSees = await bob.sees(alice.id, named: alice.name)
            return aliceSees && bobSees
        }
        return InProcessPair(alice: alice, bob: bob)
    }

    func stop() async {
        await bob.stop()
        await alice.stop()
    }

    /// A pair started in `directory`, given to `body`, and stopped after it, whether it
    /// threw or not.
    static func run<Result>(
        in directory: String, _ body: (InProcessPair) async throws -> Result
    ) async throws -> Result {
        let pair = try await start(in: directory)
        do {
            let result = try await body(pair)
            await pair.stop()
            return result
        } catch {
            await pair.stop()
            throw error
        }
    }
}

/// Warnings and errors of the in-process daemons go to standard error; the rest is noise
/// in a benchmark.
let benchLogger = Logger(label: "lanchat-bench") { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .warning
    return handler
}
