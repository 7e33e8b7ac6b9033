import Glibc
import LanChatDiscovery
import LanChatTransport
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// SIGHUP (PRODUCT.md §3): builds the configuration again from its source (the file re-read,
/// the command line still winning) and applies what can change while running, one log line
/// per change: static peers (new ones dialled, removed ones no longer dialled; sessions stay),
/// the notify command, our presence (the presence file, when edited by hand), the display
/// name (status, HELLO and the mDNS record from now on), the accept policy, read receipts,
/// the log level and the mDNS interfaces (published and browsed on the new set; sessions
/// stay, as PRODUCT.md §3 and PROTOCOL.md §10 say: `--interface` scopes mDNS, not TCP, and
/// losing a record never closes a session). What needs a restart (port, socket, data
/// directory, mDNS on/off) is logged as such and left as it runs. A file that does not parse
/// changes nothing.
///
/// Owns the running configuration; `Daemon` builds one when `lanchatd` passes its `Inputs`.
public final class ConfigurationReload: Sendable {
    /// What `lanchatd` hands the daemon so that it can reload.
    public struct Inputs: Sendable {
        public let source: ConfigurationSource
        public let logLevel: LogLevelSetting

        public init(source: ConfigurationSource, logLevel: LogLevelSetting) {
            self.source = source
            self.logLevel = logLevel
        }
    }

    /// The parts of the running daemon a reload changes.
    struct Targets: Sendable {
        let staticPeers: StaticDiscovery
        let directory: PeerDirectory
        let profile: OwnProfile
        /// Re-read at a reload: our presence as the file says, if edited by hand.
        let presenceFile: PresenceFile
        /// Where a new presence goes as PRESENCE, on every session.
        let links: LinkRegistry
        /// Dials the peers again after a rename (`renewSessions`).
        let connections: ConnectionManager
        let announcer: Announcer
        let notifyCommand: NotifyCommandSetting
        let readReceipts: ReadReceiptsSetting
        let clock: DaemonClock
        /// Nil with `--no-mdns`.
        let mdns: AvahiDiscovery?
        /// The listener's: which interfaces' addresses take new connections.
        let arrivalScope: ArrivalScope
    }

    private let inputs: Inputs
    private let targets: Targets
    private let logger: Logger
    private let running: Mutex<DaemonConfiguration>
    /// The default file (no `--config`) was there at the last load. Gone at a reload, it is
    /// far more likely an editor's save or a deployment half-way than a wish for the
    /// defaults: the running configuration is kept, as with a `--config` file gone.
    private let fileWasThere: Mutex<Bool>

    /// What `status` says of the last reload.
    private let outcome: ReloadOutcome

    init(
        inputs: Inputs, running: DaemonConfiguration, targets: Targets, outcome: ReloadOutcome,
        logger: Logger
    ) {
        self.inputs = inputs
        self.outcome = outcome
        self.targets = targets
        self.logger = logger
        self.running = Mutex(running)
        fileWasThere = Mutex(inputs.source.filePath.map(ConfigurationFile.exists) ?? false)
    }

    /// Waits for SIGHUP until graceful shutdown; each one reloads. Reloads run one at a time.
    /// The handler is installed here, before the daemon reports READY: a SIGHUP right after
    /// must reload, not end the process (SIGHUP's default action).
    func service() async -> some Service {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        return TaskService(description: "reload on SIGHUP") {
            for await _ in hangups {
                await self.reload()
            }
        }
    }

    /// Re-reads and applies; returns the lines it logged about changes (for tests).
    @discardableResult
    func reload() async -> [String] {
        let file = inputs.source.filePath ?? "(no file)"
        let new: DaemonConfiguration
        let fileIsThere = inputs.source.filePath.map(ConfigurationFile.exists) ?? false
        if !fileIsThere, fileWasThere.withLock({ $0 }) {
            logger.error(
                "reload: \(file) is gone; keeping the running configuration (restart lanchatd to run without the file)"
            )
            outcome.failed("\(file) is gone (restart lanchatd to run without the file)")
            return []
        }
        let overridden: [String]
        do {
            (new, overridden) = try inputs.source.resolveNoting()
            fileWasThere.withLock { $0 = fileIsThere }
        } catch {
            logger.error("reload: \(error.description); keeping the running configuration")
            outcome.failed(error.description)
            return []
        }
        outcome.applied()
        let old = running.withLock { $0 }
        var changes: [String] = []
        var peers = old.staticPeers
        if new.staticPeers != old.staticPeers {
            peers = await applyPeers(new.staticPeers, old: old.staticPeers, changes: &changes)
        }
        if new.name != old.name {
            let snapshot = targets.profile.rename(new.name)
            targets.announcer.announce(snapshot)
            // HELLO is the only authenticated carrier of a name: peers with a session learn
            // it from a new one, which replaces theirs without going offline.
            let renewing = await targets.connections.renewSessions(
                targets.links.renewalSchedule())
            let peers = "\(renewing.count) peer\(renewing.count == 1 ? "" : "s")"
            let told = renewing.isEmpty ? "" : " (dialling \(peers) again to tell them)"
            changes.append("name: '\(old.name)' → '\(new.name)'" + told)
        }
        if let change = await reloadPresence() { changes.append(change) }
        if new.accept != old.accept {
            targets.directory.setAcceptPolicy(new.accept)
            changes.append("accept: \(old.accept.rawValue) → \(new.accept.rawValue)")
        }
        if new.logLevel != old.logLevel {
            // A level raised past `notice` is taken after the lines below are logged, or it
            // would hide the reload's own report of itself; one lowered is taken before them,
            // for the same reason (found by QA: "critical → info" was never said).
            if new.logLevel < old.logLevel { inputs.logLevel.level = new.logLevel }
            changes.append("log-level: \(old.logLevel) → \(new.logLevel)")
        }
        if new.notifyCommand != old.notifyCommand {
            targets.notifyCommand.command = new.notifyCommand
            changes.append("notify-command: " + (new.notifyCommand == nil ? "off" : "changed"))
        }
        if new.readReceipts != old.readReceipts {
            // Read at each READ and HELLO: the next read is (or is not) reported; reads made
            // while off reach the peer with the next HELLO's `in_read` once on again.
            targets.readReceipts.enabled = new.readReceipts
            changes.append(
                "read-receipts: \(Self.onOff(old.readReceipts)) → \(Self.onOff(new.readReceipts))")
        }
        if new.interfaces != old.interfaces {
            changes.append(applyInterfaces(new.interfaces, old: old.interfaces))
        }
        changes += Self.restartOnly(old: old, new: new)
        running.withLock { current in
            // What needs a restart keeps its running value, so it is reported again next time.
            current.staticPeers = peers
            current.name = new.name
            current.logLevel = new.logLevel
            current.accept = new.accept
            current.notifyCommand = new.notifyCommand
            current.readReceipts = new.readReceipts
            current.interfaces = new.interfaces
        }
        for key in overridden {
            changes.append("\(key) in \(file) not used: --\(key) on the command line wins")
        }
        for change in changes { logger.notice("reload: \(change)") }
        if changes.isEmpty {
            // Said as such when there is no file (found by QA: "PATH: nothing changed" of a
            // file that does not exist).
            logger.notice(
                fileIsThere
                    ? "reload: \(file): nothing changed"
                    : "reload: no configuration file at \(file); nothing changed")
        }
        inputs.logLevel.level = new.logLevel
        return changes
    }

    /// The presence file edited by hand since it was last read or written (PRODUCT.md §3 lists
    /// presence among what SIGHUP reloads; it is no configuration key, so the file is where
    /// an operator sets it): applied as `lanchat presence` applies it.
    private func reloadPresence() async -> String? {
        let loaded: PresenceFile.Loaded
        switch targets.presenceFile.load() {
        case .success(nil): return nil
        case .success(let read?): loaded = read
        case .failure(let error):
            logger.error("reload: \(error); presence unchanged")
            return nil
        }
        targets.presenceFile.rewriteMended(loaded, logger, prefix: "reload: ")
        let before = targets.profile.snapshot
        let saved = loaded.saved
        guard saved.status != before.status || saved.statusText != before.statusText else {
            return nil
        }
        let after = targets.profile.update(
            status: saved.status, statusText: saved.statusText, keep: { _ in })
        await targets.links.announcePresence(after)
        targets.announcer.announce(after)
        // As `lanchat presence` names them (found by QA: the file's "avail").
        return "presence: \(before.status) → \(after.status)"
            + (before.statusText == after.statusText ? "" : ", status text changed")
    }

    /// Pins the new peers' keys, hands the list to static discovery and says what changed.
    /// Returns the list now in use: a new peer whose key cannot be pinned is left out.
    private func applyPeers(_ new: [StaticPeer], old: [StaticPeer], changes: inout [String])
        async -> [StaticPeer]
    {
        var applied: [StaticPeer] = []
        for peer in new {
            if !old.contains(peer), let key = peer.key {
                // Pinned before the first dial, as at start (no TOFU window).
                do {
                    try await targets.directory.pinAhead(key, at: targets.clock.wallMilliseconds())
                } catch {
                    logger.error("reload: cannot pin \(key.id): \(error); peer \(peer) not added")
                    continue
                }
            }
            if !old.contains(peer) { changes.append("peer added: \(peer)") }
            applied.append(peer)
        }
        for peer in old where !new.contains(peer) {
            changes.append("peer removed: \(peer) (no longer dialled)")
        }
        targets.staticPeers.replace(
            with: applied.map { StaticDiscovery.Peer(endpoint: $0.endpoint, key: $0.key) })
        return applied
    }

    /// Hands the new list to the listener and to mDNS and says what that does. Sessions are
    /// left alone: a peer seen only on a removed interface is reported lost, so it is not
    /// dialled again there once its session ends, but the session itself stays (a lost record
    /// never closes one); a new connection to an address of a removed interface is refused.
    private func applyInterfaces(_ new: [String], old: [String]) -> String {
        let change = "interface: \(Self.describe(old)) → \(Self.describe(new))"
        targets.arrivalScope.allow(new)
        Self.warnAboutAbsentInterfaces(new, logger: logger)
        guard let mdns = targets.mdns else {
            return change + "; new connections judged by it (mDNS is off), open sessions stay"
        }
        mdns.useInterfaces(new)
        return change
            + "; new connections judged by it, mDNS republished and browsed there, open sessions stay"
    }

    /// An `interface` that this machine does not have (yet): most likely a typo, said once
    /// (found by QA: taken without a word). It is kept: a USB or VPN interface may come later.
    static func warnAboutAbsentInterfaces(_ names: [String], logger: Logger) {
        let absent = names.filter { if_nametoindex($0) == 0 }
        guard !absent.isEmpty else { return }
        logger.warning(
            """
            no interface named \(absent.joined(separator: ", ")) on this machine (yet); \
            it is used once it appears
            """)
    }

    private static func describe(_ interfaces: [String]) -> String {
        interfaces.isEmpty ? "(all)" : interfaces.joined(separator: ",")
    }

    private static func onOff(_ enabled: Bool) -> String { enabled ? "on" : "off" }

    private static func restartOnly(old: DaemonConfiguration, new: DaemonConfiguration)
        -> [String]
    {
        var lines: [String] = []
        func note(_ key: String, _ from: String, _ to: String) {
            if from != to { lines.append("\(key): \(from) → \(to) takes effect at the next start") }
        }
        note("port", "\(old.port)", "\(new.port)")
        note("socket", old.socketPath, new.socketPath)
        note("data-dir", old.dataDirectory, new.dataDirectory)
        note("no-mdns", "\(!old.mdns)", "\(!new.mdns)")
        return lines
    }
}
