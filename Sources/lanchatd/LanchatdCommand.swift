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
        version: "lanchatd \(LanChatVersion.current) (control API \(ControlAPI.version))")

    @Option(
        help: ArgumentHelp(
            "Display name, at most 64 bytes (default: $USER@$(hostname -s)).", valueName: "name"))
    var name: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Data directory (default: $XDG_DATA_HOME/lanchat, else ~/.local/share/lanchat).",
            valueName: "path"))
    var dataDir: String?

    @Option(
        help: ArgumentHelp(
            "Control socket path (default: $LANCHAT_SOCKET, else $XDG_RUNTIME_DIR/lanchat/lanchatd.sock, else /tmp/lanchat-$UID/lanchatd.sock).",
            valueName: "path"))
    var socket: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "TCP port to listen on; 0 (the default) picks a free port, announced over mDNS.",
            valueName: "port"))
    var port: Int?

    @Option(
        name: .customLong("peer"),
        help: ArgumentHelp(
            "A static peer, dialled without mDNS; repeatable. With id@, its key is pinned in advance.",
            valueName: "[id@]host:port"))
    var peers: [String] = []

    @Flag(
        name: .customLong("no-mdns"),
        help:
            "Neither publish nor browse over mDNS (Avahi); only --peer peers are dialled, and known peers' last addresses while messages wait for them."
    )
    var noMDNS = false

    @Option(
        name: .customLong("interface"),
        help: ArgumentHelp(
            "Publish, browse and take connections only on this network interface (connections to loopback are always taken); repeatable (default: every interface).",
            valueName: "if"))
    var interfaces: [String] = []

    @Option(
        name: .customLong("read-receipts"),
        help: ArgumentHelp(
            "on (the default): tell peers when their messages were read (READ); off: mark read locally only.",
            valueName: "on|off"))
    var readReceipts: String?

    @Option(
        name: .customLong("accept"),
        help: ArgumentHelp(
            "anyone (the default): messages from anyone reach the inbox; contacts: messages from non-contacts are kept apart as message requests until 'lanchat accept'.",
            valueName: "anyone|contacts"))
    var accept: String?

    @Option(
        name: .customLong("notify-command"),
        help: ArgumentHelp(
            "Run by /bin/sh -c for each incoming message, with LANCHAT_FROM, LANCHAT_FROM_ID and LANCHAT_TEXT (and LANCHAT_GROUP, LANCHAT_GROUP_ID for a group's) in its environment (never in the command line); at most 4 at once, each ended after 10 s. \"\" turns it off.",
            valueName: "cmd"))
    var notifyCommand: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "trace, debug, info (the default), notice, warning, error or critical.",
            valueName: "level"))
    var logLevel: String?

    @Option(
        help: ArgumentHelp(
            "Configuration file (default: $XDG_CONFIG_HOME/lanchat/lanchatd.conf, else ~/.config/lanchat/lanchatd.conf); command-line options override it. SIGHUP re-reads it.",
            valueName: "path"))
    var config: String?

    @Flag(
        name: .customLong("reset-identity"),
        help: ArgumentHelp(
            "Move a broken identity key aside (identity.key.broken-<time>) and create a new "
                + "one; or create one where the key is missing beside an existing store. A key "
                + "that loads is kept and the start refused."))
    var resetIdentity = false

    @Flag(
        name: .customLong("repair-store"),
        help: ArgumentHelp(
            "Before starting, check the whole store and, if it is damaged, copy what it still "
                + "holds into a new one; the damaged file is kept as "
                + "lanchat.sqlite3.damaged-<time>. A sound store is left as it is."))
    var repairStore = false

    /// ArgumentParser's entry, with two things first: SIGHUP ignored before anything else
    /// (its default would end the daemon until the reload service traps it; a reload asked
    /// for before then finds the file just read anyway; found by QA in the first 10 ms, while
    /// the arguments were still being parsed), and under systemd's journal a usage error's
    /// lines marked with their priority as the log's are (found by QA: they had none).
    static func main() async {
        signal(SIGHUP, SIG_IGN)
        guard ProcessInfo.processInfo.environment["JOURNAL_STREAM"]?.isEmpty == false else {
            return await main(nil)
        }
        do {
            var command = try parseAsRoot()
            if var daemon = command as? AsyncParsableCommand {
                try await daemon.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            // --help and --version print to standard output as usual; an ExitCode prints nothing.
            guard code != .success, !(error is ExitCode) else { exit(withError: error) }
            let lines = fullMessage(for: error).split(
                separator: "\n", omittingEmptySubsequences: false)
            let marked = lines.map { "<\(StderrLogHandler.errorPriority)>" + $0 }
            FileHandle.standardError.write(Data((marked.joined(separator: "\n") + "\n").utf8))
            exit(withError: code)
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let journal = environment["JOURNAL_STREAM"].map { !$0.isEmpty } ?? false
        let levelSetting = LogLevelSetting(.info)
        LoggingSystem.bootstrap { label in
            StderrLogHandler(label: label, levelSetting: levelSetting, journal: journal)
        }
        let logger = Logger(label: "lanchatd")
        if let ignored = DaemonConfiguration.ignoredDeadTimeout(environment: environment) {
            logger.warning("\(ignored)")
        }
        do {
            let source = ConfigurationSource(
                filePath: config.map(absolute)
                    ?? ConfigurationFile.defaultPath(
                        environment: environment),
                fileRequired: config != nil, commandLine: try commandLineSettings(),
                environment: environment)
            var configuration = try source.resolve()
            configuration.resetIdentity = resetIdentity
            configuration.repairStore = repairStore
            levelSetting.level = configuration.logLevel
            let daemon = try await Daemon.start(
                configuration, logger: logger, environment: environment,
                reload: ConfigurationReload.Inputs(source: source, logLevel: levelSetting))
            try await daemon.run()
        } catch let error as DaemonError {
            logger.critical("\(error.description)")
            throw ExitCode(error.exitCode)
        }
    }

    /// What the command line says; options not given stay `nil`, so the file's values stand.
    func commandLineSettings() throws(DaemonError) -> DaemonSettings {
        let undecodable = UndecodableArguments.ofProcess().decoded
        if let argument = undecodable.filter({ $0.hasPrefix("-") }).first ?? undecodable.first {
            throw .usage("the argument '\(argument)' is not valid UTF-8")
        }
        // An empty path (a script's empty variable) would be the current directory: the
        // data directory there would take it over and make it 0700.
        for (option, value) in [
            ("--data-dir", dataDir), ("--socket", socket), ("--config", config),
        ]
        where value?.isEmpty == true {
            throw .usage("\(option) is empty; give a path")
        }
        if let problem = interfaces.lazy.compactMap(DaemonConfiguration.interfaceNameProblem)
            .first
        {
            throw .usage("--interface \(problem)")
        }
        var settings = DaemonSettings()
        settings.name = name
        settings.dataDirectory = dataDir.map(absolute)
        settings.socketPath = socket.map(absolute)
        settings.port = port
        if !peers.isEmpty {
            settings.peers = try peers.map { text throws(DaemonError) in
                try StaticPeer(parsing: text)
            }
        }
        if noMDNS { settings.noMDNS = true }
        if !interfaces.isEmpty { settings.interfaces = interfaces }
        switch readReceipts {
        case nil: break
        case "on": settings.readReceipts = true
        case "off": settings.readReceipts = false
        case let other?: throw .usage("--read-receipts must be on or off, not '\(other)'")
        }
        if let accept {
            guard let policy = AcceptPolicy(option: accept) else {
                throw .usage("--accept must be anyone or contacts, not '\(accept)'")
            }
            settings.accept = policy
        }
        settings.notifyCommand = notifyCommand
        if let logLevel {
            guard let level = Logger.Level(rawValue: logLevel) else {
                throw .usage(
                    "--log-level must be one of trace, debug, info, notice, warning, error, critical"
                )
            }
            settings.logLevel = level
        }
        return settings
    }

    /// Relative to the working directory, and `~/` the home directory as in the file (found
    /// by QA: a quoted `~/x` in a systemd unit became a directory named `~`).
    private func absolute(_ path: String) -> String {
        if path.hasPrefix("~/"),
            let home = HomeDirectory.resolve(environment: ProcessInfo.processInfo.environment)
        {
            return home + path.dropFirst(1)
        }
        return path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
