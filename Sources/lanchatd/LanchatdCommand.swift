import ArgumentParser
import Foundation
import LanChatControl
import LanChatDaemon
import Logging

/// `lanchatd`: options → configuration → logging → `Daemon` (PRODUCT.md §3).
@main
struct LanchatdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lanchatd",
        abstract: "The lanchat daemon: LAN discovery, encrypted sessions and the message store.",
        discussion: """
            Runs in the foreground (as a systemd user service, or by hand) until SIGTERM or \
            SIGINT. See lanchatd(8).
            """,
        version: LanChatVersion.current)

    @Option(help: "Display name, at most 64 bytes (default: $USER@$(hostname -s)).")
    var name: String?

    @Option(
        name: .customLong("data-dir"),
        help: "Data directory (default: $XDG_DATA_HOME/lanchat, else ~/.local/share/lanchat).")
    var dataDir: String?

    @Option(
        help:
            "Control socket path (default: $LANCHAT_SOCKET, else $XDG_RUNTIME_DIR/lanchat/lanchatd.sock, else /tmp/lanchat-$UID/lanchatd.sock)."
    )
    var socket: String?

    @Option(help: "TCP port to listen on; 0 picks a free port, announced over mDNS.")
    var port: Int = 0

    @Option(
        name: .customLong("peer"),
        help: ArgumentHelp(
            "A static peer, dialled without mDNS; repeatable. With ID@, its key is pinned in advance.",
            valueName: "[ID@]HOST:PORT"))
    var peers: [String] = []

    @Flag(
        name: .customLong("no-mdns"),
        help: "Neither publish nor browse over mDNS (Avahi); only --peer peers are dialled.")
    var noMDNS = false

    @Option(
        name: .customLong("interface"),
        help: ArgumentHelp(
            "Publish and browse only on this network interface; repeatable (default: every interface Avahi uses except loopback).",
            valueName: "IF"))
    var interfaces: [String] = []

    @Option(
        name: .customLong("read-receipts"),
        help: ArgumentHelp(
            "on: tell peers when their messages were read (READ); off: mark read locally only.",
            valueName: "on|off"))
    var readReceipts: String = "on"

    @Option(
        name: .customLong("log-level"),
        help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    @Flag(
        name: .customLong("reset-identity"),
        help: "Move a broken identity key aside (identity.key.broken-<time>) and create a new one.")
    var resetIdentity = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError(
                "--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        let journal = environment["JOURNAL_STREAM"].map { !$0.isEmpty } ?? false
        LoggingSystem.bootstrap { label in
            StderrLogHandler(label: label, level: level, journal: journal)
        }
        let logger = Logger(label: "lanchatd")
        do {
            let configuration = try makeConfiguration(environment: environment)
            let daemon = try await Daemon.start(
                configuration, logger: logger, environment: environment)
            try await daemon.run()
        } catch let error as DaemonError {
            logger.critical("\(error.description)")
            throw ExitCode(error.exitCode)
        }
    }

    func makeConfiguration(environment: [String: String]) throws(DaemonError) -> DaemonConfiguration
    {
        var configuration = DaemonConfiguration.defaults(environment: environment)
        if let name { configuration.name = name }
        if let dataDir { configuration.dataDirectory = absolute(dataDir) }
        if let socket { configuration.socketPath = absolute(socket) }
        configuration.port = port
        configuration.staticPeers = try peers.map { text throws(DaemonError) in
            try StaticPeer(parsing: text)
        }
        configuration.resetIdentity = resetIdentity
        configuration.mdns = !noMDNS
        configuration.interfaces = interfaces
        switch readReceipts {
        case "on": configuration.readReceipts = true
        case "off": configuration.readReceipts = false
        default: throw .usage("--read-receipts must be on or off, not '\(readReceipts)'")
        }
        return configuration
    }

    private func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
