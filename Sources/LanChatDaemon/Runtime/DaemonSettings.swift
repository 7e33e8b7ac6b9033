import Logging

/// What one source says about the daemon's options: the command line or the configuration
/// file (PRODUCT.md §3: every long option is also a file key). `nil` means "not said here";
/// `overlaid(by:)` lets the command line win over the file, and `applied(to:)` puts the
/// result over the built-in defaults.
public struct DaemonSettings: Sendable, Equatable {
    public var name: String?
    public var dataDirectory: String?
    public var socketPath: String?
    public var port: Int?
    public var peers: [StaticPeer]?
    public var noMDNS: Bool?
    public var interfaces: [String]?
    public var readReceipts: Bool?
    public var logLevel: Logger.Level?
    public var accept: AcceptPolicy?
    /// An empty command turns notifications off (so the command line can override a file).
    public var notifyCommand: String?
    // Options added by later issues get a field here, a key
    // in `ConfigurationFile.keys`, and a line in `applied(to:)`.

    public init() {}

    /// These settings with every value `other` gives replacing ours.
    public func overlaid(by other: DaemonSettings) -> DaemonSettings {
        var merged = self
        merged.name = other.name ?? name
        merged.dataDirectory = other.dataDirectory ?? dataDirectory
        merged.socketPath = other.socketPath ?? socketPath
        merged.port = other.port ?? port
        merged.peers = other.peers ?? peers
        merged.noMDNS = other.noMDNS ?? noMDNS
        merged.interfaces = other.interfaces ?? interfaces
        merged.readReceipts = other.readReceipts ?? readReceipts
        merged.logLevel = other.logLevel ?? logLevel
        merged.accept = other.accept ?? accept
        merged.notifyCommand = other.notifyCommand ?? notifyCommand
        return merged
    }

    /// The keys both give, with different values, where `other` (the command line) wins:
    /// what a reload of the file cannot change (found by QA: said nowhere).
    public func keysOverridden(by other: DaemonSettings) -> [String] {
        var keys: [String] = []
        func check<T: Equatable>(_ key: String, _ mine: T?, _ theirs: T?) {
            if let mine, let theirs, mine != theirs { keys.append(key) }
        }
        check("name", name, other.name)
        check("data-dir", dataDirectory, other.dataDirectory)
        check("socket", socketPath, other.socketPath)
        check("port", port, other.port)
        check("peer", peers, other.peers)
        check("no-mdns", noMDNS, other.noMDNS)
        check("interface", interfaces, other.interfaces)
        check("read-receipts", readReceipts, other.readReceipts)
        check("log-level", logLevel, other.logLevel)
        check("accept", accept, other.accept)
        check("notify-command", notifyCommand, other.notifyCommand)
        return keys
    }

    /// `base` with every value given here.
    public func applied(to base: DaemonConfiguration) -> DaemonConfiguration {
        var configuration = base
        if let name { configuration.name = name }
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        if let socketPath { configuration.socketPath = socketPath }
        if let port { configuration.port = port }
        if let peers { configuration.staticPeers = peers }
        if let noMDNS { configuration.mdns = !noMDNS }
        if let interfaces { configuration.interfaces = interfaces }
        if let readReceipts { configuration.readReceipts = readReceipts }
        if let logLevel { configuration.logLevel = logLevel }
        if let accept { configuration.accept = accept }
        if let notifyCommand {
            configuration.notifyCommand = notifyCommand.isEmpty ? nil : notifyCommand
        }
        return configuration
    }
}

/// Where the running configuration comes from, kept so that SIGHUP can build it again: the
/// file (re-read), the command line (still wins) and the environment's defaults.
public struct ConfigurationSource: Sendable {
    /// The file to read; `nil` when there is none to read (tests).
    public var filePath: String?
    /// `--config PATH` was given: a missing file is an error, not "no file".
    public var fileRequired: Bool
    public var commandLine: DaemonSettings
    public var environment: [String: String]

    public init(
        filePath: String?, fileRequired: Bool, commandLine: DaemonSettings,
        environment: [String: String]
    ) {
        self.filePath = filePath
        self.fileRequired = fileRequired
        self.commandLine = commandLine
        self.environment = environment
    }

    /// Defaults, then the file, then the command line.
    public func resolve() throws(DaemonError) -> DaemonConfiguration {
        try resolveNoting().configuration
    }

    /// `resolve()`, and the file's keys the command line overrides.
    func resolveNoting() throws(DaemonError) -> (
        configuration: DaemonConfiguration, overridden: [String]
    ) {
        var settings = DaemonSettings()
        if let filePath {
            settings = try ConfigurationFile.load(
                path: filePath, required: fileRequired, environment: environment)
        }
        return (
            settings.overlaid(by: commandLine).applied(to: .defaults(environment: environment)),
            settings.keysOverridden(by: commandLine)
        )
    }
}
