import Foundation
import LanChatClient
import LanChatControl
import LanChatCore
import Logging
import Synchronization
import Testing

@testable import LanChatDaemon

/// A whole daemon in this process, on 127.0.0.1 with its own data directory and socket,
/// driven through the real control client. Restartable on the same data directory.
final class TestNode: @unchecked Sendable {
    let name: String
    let dataDirectory: String
    let socketPath: String
    private(set) var daemon: Daemon
    private var task: Task<Void, any Error>
    private(set) var client: ControlClient
    private let peers: [StaticPeer]
    /// Changes to the test configuration, kept for restarts.
    private let configure: @Sendable (inout DaemonConfiguration) -> Void

    private init(
        name: String, dataDirectory: String, socketPath: String, daemon: Daemon,
        task: Task<Void, any Error>, peers: [StaticPeer],
        configure: @escaping @Sendable (inout DaemonConfiguration) -> Void
    ) {
        self.configure = configure
        self.name = name
        self.dataDirectory = dataDirectory
        self.socketPath = socketPath
        self.daemon = daemon
        self.task = task
        self.client = ControlClient(socketPath: socketPath)
        self.peers = peers
    }

    static func start(
        _ name: String, peers: [TestNode] = [], in root: TestRoot,
        configure: @escaping @Sendable (inout DaemonConfiguration) -> Void = { _ in }
    ) async throws -> TestNode {
        let dataDirectory = root.path + "/" + name
        let socketPath = root.path + "/" + name + ".sock"
        let staticPeers = peers.map {
            StaticPeer(endpoint: Endpoint(host: "127.0.0.1", port: $0.daemon.port))
        }
        let (daemon, task) = try await launchOnAFixedPort(
            name: name, dataDirectory: dataDirectory, socketPath: socketPath, peers: staticPeers,
            configure: configure)
        return TestNode(
            name: name, dataDirectory: dataDirectory, socketPath: socketPath, daemon: daemon,
            task: task, peers: staticPeers, configure: configure)
    }

    /// Ports below Linux's ephemeral range (32768 and up), handed out once each in this
    /// process. A node restarts on the port it had so its peers find it again; an ephemeral
    /// port, once released by the stopped node, could be taken meanwhile as the source port of
    /// any connection of the hundreds of tests running beside it, and a port picked at random
    /// could be picked again by another node ("Address already in use" on restart). Another
    /// process may still hold one: the first start then moves on to the next.
    static let fixedPorts: ClosedRange<UInt16> = 20_000...32_000
    private static let nextPort = Atomic<UInt16>(UInt16.random(in: 20_000...26_000))

    static func takePort() -> UInt16 {
        let port = nextPort.wrappingAdd(1, ordering: .relaxed).oldValue
        return fixedPorts.contains(port) ? port : fixedPorts.lowerBound
    }

    private static func launchOnAFixedPort(
        name: String, dataDirectory: String, socketPath: String, peers: [StaticPeer],
        configure: @escaping (inout DaemonConfiguration) -> Void
    ) async throws -> (Daemon, Task<Void, any Error>) {
        var attempts = 0
        while true {
            do {
                return try await launch(
                    name: name, dataDirectory: dataDirectory, socketPath: socketPath,
                    peers: peers, port: takePort(), configure: configure)
            } catch let error as DaemonError where error.exitCode == 73 && attempts < 20 {
                attempts += 1
            }
        }
    }

    private static func launch(
        name: String, dataDirectory: String, socketPath: String, peers: [StaticPeer],
        port: UInt16 = 0, configure: (inout DaemonConfiguration) -> Void
    ) async throws -> (Daemon, Task<Void, any Error>) {
        var configuration = DaemonConfiguration(
            name: name, dataDirectory: dataDirectory, socketPath: socketPath)
        configuration.listenHost = "127.0.0.1"
        configuration.port = Int(port)
        configuration.mdns = false
        configuration.staticPeers = peers
        configure(&configuration)
        let daemon = try await Daemon.start(
            configuration, logger: quietLogger, environment: [:], handleSignals: false)
        let task = Task { try await daemon.run() }
        return (daemon, task)
    }

    /// Stops the daemon cleanly (CLOSE to its peers) and waits until it has stopped.
    func stop() async {
        await daemon.stop()
        _ = try? await task.value
        client.close()
    }

    /// Starts the daemon again on the same data directory (same key, same store) and port,
    /// so peers that dial it find it again.
    ///
    /// The stopped daemon released its lock, but this test process also spawns binaries (the
    /// CLI and end-to-end suites run alongside): a child between fork and exec holds a copy
    /// of every descriptor, the lock's included, so for that moment the directory is still
    /// locked. Nothing announces the exec, so a held lock is retried for up to 2 s.
    /// Starts the node again on its data; `reconfigure`, if given, in place of its own
    /// configuration change (a setting changed between two runs).
    func restart(
        reconfigure: (@Sendable (inout DaemonConfiguration) -> Void)? = nil
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                (daemon, task) = try await Self.launch(
                    name: name, dataDirectory: dataDirectory, socketPath: socketPath,
                    peers: peers, port: daemon.port, configure: reconfigure ?? configure)
                break
            } catch let error as DaemonError where error.exitCode == 75 || error.exitCode == 73 {
                // 73: in this process the stopped daemon's listening socket is closed on its
                // event loop, which may finish just after `run()` returned (a lanchatd process
                // that exits has no such window: restarting the binary at once binds again).
                guard ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        client = ControlClient(socketPath: socketPath)
    }

    var id: String { daemon.identityKey.id }

    func history(with peer: TestNode, limit: Int = 1000) async throws -> [MessageInfo] {
        try await client.history(HistoryParams(peer: peer.id, limit: limit)).messages
    }

    /// Online, and known by name (the name arrives in HELLO, just after the session is up).
    func isOnline(_ peer: TestNode) async -> Bool {
        let peers = (try? await client.who(WhoParams(all: true)).peers) ?? []
        return peers.contains { $0.id == peer.id && $0.presence == .online && $0.name == peer.name }
    }
}

let quietLogger = Logger(label: "daemon-test") { _ in SwiftLogNoOpLogHandler() }

/// The messages a logger was given, for tests that check what the daemon says.
final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    var messages: [String] { lines.withLock { $0 } }

    var logger: Logger {
        Logger(label: "daemon-test") { _ in Handler(log: self) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.lines.withLock { $0.append(event.message.description) }
        }
    }
}

/// A temporary directory for one test's nodes.
struct TestRoot {
    let path: String

    init() throws {
        path = "/tmp/lanchat-daemon-test-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Polls `condition` until it holds or `timeout` passes (then records an issue). For
/// conditions that are observed through the API, which has no push notifications yet.
func eventually(
    _ description: String, timeout: Duration = .seconds(10),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out waiting for: \(description)", sourceLocation: sourceLocation)
    throw CancellationError()
}

extension TestNode {
    /// Creates group `name` with `members` (by name) and waits until each of `nodes` holds it.
    func createGroup(_ name: String, members: [String], seenBy nodes: [TestNode])
        async throws -> GroupInfo
    {
        let group = try await client.groupCreate(GroupCreateParams(name: name, peers: members))
            .group
        for node in nodes {
            try await eventually("\(node.name) has the group") {
                try await node.client.groups().groups.contains { $0.id == group.id }
            }
        }
        return group
    }

    /// Stops this node and waits until `observer` lists it offline.
    func stopAndWaitOffline(seenBy observer: TestNode) async throws {
        await stop()
        try await eventually("\(name) offline") { await !observer.isOnline(self) }
    }
}

/// Two nodes, bob dialling alice, online to each other.
/// Runs `body` with alice and bob online to each other, each in its own directory of a fresh
/// test root; stops both daemons (whatever `body` did) before the directories are removed.
func withConnectedPair(
    bob configureBob: @escaping @Sendable (inout DaemonConfiguration) -> Void = { _ in },
    _ body: (_ alice: TestNode, _ bob: TestNode) async throws -> Void
) async throws {
    let root = try TestRoot()
    defer { root.remove() }
    let (alice, bob) = try await connectedPair(in: root, bob: configureBob)
    do {
        try await body(alice, bob)
    } catch {
        await alice.stop()
        await bob.stop()
        throw error
    }
    await alice.stop()
    await bob.stop()
}

func connectedPair(
    in root: TestRoot,
    bob configureBob: @escaping @Sendable (inout DaemonConfiguration) -> Void = { _ in }
) async throws -> (alice: TestNode, bob: TestNode) {
    let alice = try await TestNode.start("alice", in: root)
    let bob = try await TestNode.start("bob", peers: [alice], in: root, configure: configureBob)
    try await eventually("alice and bob online") {
        let aliceSees = await alice.isOnline(bob)
        let bobSees = await bob.isOnline(alice)
        return aliceSees && bobSees
    }
    return (alice, bob)
}
