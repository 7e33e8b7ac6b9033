import Foundation
import LanChatControl
import LanChatCore
import LanChatCrypto
import LanChatDiscovery
import LanChatStore
import LanChatTransport
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The composition root: builds every part in dependency order, binds the sockets, reports
/// READY, and runs the services until SIGTERM/SIGINT (or `stop()`), then stops cleanly:
/// CLOSE on every session, the mDNS record withdrawn, the store closed, within 2 s.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let identityKey: PeerKey
    /// The TCP port actually bound (the ephemeral one when `port` was 0).
    public let port: UInt16
    let messenger: Messenger
    let registry: LinkRegistry
    private let group: ServiceGroup
    private let logger: Logger
    private let notifier: SystemdNotifier
    private let lock: DataDirectoryLock
    private let store: MessageStore

    /// Prepares everything that can fail with a clear error (data directory, lock, key,
    /// store, sockets) without running anything yet.
    public static func start(
        _ configuration: DaemonConfiguration, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        handleSignals: Bool = true, reload: ConfigurationReload.Inputs? = nil
    ) async throws(DaemonError) -> Daemon {
        try configuration.validate()
        if !ProcessHardening.apply() {
            logger.warning("cannot disable core dumps: the key could end up in a core file")
        }
        try PrivateDirectory.ensure(configuration.dataDirectory, purpose: "data directory")
        let lock = try DataDirectoryLock.acquire(in: configuration.dataDirectory)
        // After the lock: a second daemon on the same directory is told its PID (exit 75).
        try Self.refuseSocketInUse(configuration.socketPath, environment: environment)
        let identity = try Self.loadIdentity(configuration, logger: logger)
        if configuration.repairStore { try Self.repairStore(configuration, logger: logger) }
        let store = try Self.openStore(configuration, owner: identity.publicKey)
        for warning in store.warnings { logger.warning("\(warning)") }
        let clock = DaemonClock.system
        let records: [PeerRecord]
        do {
            records = try await store.peers()
        } catch {
            throw .store("cannot read the pin store: \(error)")
        }
        let directory = PeerDirectory(
            ownKey: identity.publicKey, records: records, persistence: store)
        directory.setAcceptPolicy(configuration.accept)
        for peer in configuration.staticPeers {
            guard let key = peer.key else { continue }
            // `--peer ID@…` pins the key before the first contact (no TOFU window).
            do {
                try await directory.pinAhead(key, at: clock.wallMilliseconds())
            } catch {
                throw .store("cannot pin \(key.id): \(error)")
            }
        }
        return try await Self.assemble(
            configuration, identity: identity, store: store, directory: directory, lock: lock,
            clock: clock, logger: logger, environment: environment, handleSignals: handleSignals,
            reload: reload)
    }

    /// A socket another lanchatd answers on ends the start before a key or a store is made
    /// in the data directory (found by QA: a fresh one got a key, a store and a marker).
    /// `ControlServer.bind` asks again when it binds, for a daemon that came up meanwhile;
    /// a socket systemd passes is ours to serve.
    private static func refuseSocketInUse(_ path: String, environment: [String: String])
        throws(DaemonError)
    {
        let activated = environment["LISTEN_PID"].flatMap(Int32.init) == getpid()
        guard !activated, ControlSocketFile.existing(at: path)?.isSocket == true,
            ControlSocketProbe.isLive(path)
        else { return }
        throw .socketUnavailable(ControlServer.inUseText(path))
    }

    private init(
        configuration: DaemonConfiguration, identityKey: PeerKey, port: UInt16,
        messenger: Messenger, registry: LinkRegistry, group: ServiceGroup, logger: Logger,
        notifier: SystemdNotifier, lock: DataDirectoryLock, store: MessageStore
    ) {
        self.configuration = configuration
        self.identityKey = identityKey
        self.port = port
        self.messenger = messenger
        self.registry = registry
        self.group = group
        self.logger = logger
        self.notifier = notifier
        self.lock = lock
        self.store = store
    }

    private static func assemble(
        _ configuration: DaemonConfiguration, identity: IdentityKeyPair, store: MessageStore,
        directory: PeerDirectory, lock: DataDirectoryLock, clock: DaemonClock, logger: Logger,
        environment: [String: String], handleSignals: Bool, reload: ConfigurationReload.Inputs?
    ) async throws(DaemonError) -> Daemon {
        let events = EventBus()
        let presenceFile = PresenceFile(dataDirectory: configuration.dataDirectory)
        let profile = OwnProfile(
            name: configuration.name, saved: presenceFile.loadLogging(logger))
        directory.tellOwnName { profile.snapshot.name }
        let readReceipts = ReadReceiptsSetting(configuration.readReceipts)
        let services = LinkServices(
            store: store, directory: directory, events: events, profile: profile,
            logger: logger, readReceipts: readReceipts, clock: clock)
        let registry = LinkRegistry(services: services)
        let transport = Transport(
            identity: identity, configuration: configuration.transport,
            arrivalScope: ArrivalScope(interfaces: configuration.interfaces), logger: logger)
        let listener: Listener
        do {
            listener = try await transport.listen(
                host: configuration.listenHost, port: configuration.port)
        } catch {
            throw .socketUnavailable(
                "cannot listen on \(configuration.listenHost) port \(configuration.port): "
                    + systemErrorText(error))
        }
        let activated = ActivatedSocket.take(environment: environment)
        let control = try await ControlServer.bind(
            path: configuration.socketPath, group: MultiThreadedEventLoopGroup.singleton,
            logger: logger, activated: activated)
        let staticPeers = StaticDiscovery(
            peers: configuration.staticPeers.map {
                StaticDiscovery.Peer(endpoint: $0.endpoint, key: $0.key)
            })
        var discoveries: [any PeerDiscovery] = [staticPeers]
        let mdns: AvahiDiscovery? =
            configuration.mdns
            ? AvahiDiscovery(
                configuration: .init(
                    ownKey: identity.publicKey, interfaces: configuration.interfaces),
                logger: logger)
            : nil
        ConfigurationReload.warnAboutAbsentInterfaces(configuration.interfaces, logger: logger)
        let announcer = Announcer(key: identity.publicKey, port: listener.port, mdns: mdns)
        if let mdns {
            // Announced before READY: publication starts as soon as the client connects.
            announcer.announce(profile.snapshot)
            discoveries.append(mdns)
        }
        let connections = ConnectionManager(
            transport: transport, registry: registry, directory: directory, clock: clock,
            logger: logger, discoveryState: configuration.mdns ? .connecting : .disabled)
        // The bound wildcard, or with --interface the addresses that take connections now.
        let bound = [listener.localAddress?.description ?? "\(configuration.listenHost):?"]
        let arrivalScope = transport.arrivalScope
        let port = Int(listener.port)
        let listening: @Sendable () -> [String] = {
            arrivalScope.listeningAddresses(port: port) ?? bound
        }
        let reloadOutcome = ReloadOutcome()
        let runtime = RuntimeFacts(
            name: { profile.snapshot.name },
            startedAt: Timestamp(millisecondsSince1970: clock.wallMilliseconds()),
            startInstant: clock.monotonic(), listening: listening,
            dataDirectory: configuration.dataDirectory,
            socketPath: control.path, mdnsEnabled: configuration.mdns,
            keepPresence: { snapshot throws(PresenceFileError) in
                try presenceFile.save(
                    PresenceFile.Saved(status: snapshot.status, statusText: snapshot.statusText))
            },
            presenceChanged: { snapshot in announcer.announce(snapshot) },
            reloadError: { reloadOutcome.lastFailure })
        // The store tells `watch` streams and the search indexer when the event log grew (on
        // its writer queue: both only signal).
        let eventFeed = EventFeed()
        let searchIndexer = SearchIndexer(store: store, clock: clock, logger: logger)
        store.onEventsCommitted = {
            eventFeed.logGrew()
            searchIndexer.messagesStored()
        }
        let stagedBatchWriter = StagedBatchWriter(store: store, clock: clock, logger: logger)
        store.onStaged = { stagedBatchWriter.staged() }
        let messenger = Messenger(
            services: services, registry: registry, connections: connections, runtime: runtime,
            eventFeed: eventFeed)
        let dispatcher = ControlDispatcher.routes(to: messenger)
        // Graceful shutdown stops services in reverse order: "sessions" (last) closes the
        // listening socket, sends CLOSE on every session and waits until each has ended and
        // its presence change is written; only then are the tasks that ran them (listener,
        // connections) cancelled, then the rest; the control socket (first) answers until the
        // very end.
        var serviceList: [any Service] = [
            ControlSocketService(server: control, dispatcher: dispatcher)
        ]
        for discovery in discoveries {
            serviceList.append(TaskService(description: "discovery") { try await discovery.run() })
        }
        serviceList.append(TaskService(description: "search index") { await searchIndexer.run() })
        serviceList.append(
            TaskService(description: "staged batches") { await stagedBatchWriter.run() })
        let discoveryEvents = discoveries.map(\.events)
        serviceList.append(
            TaskService(description: "connections") {
                await connections.run(discoveries: discoveryEvents)
            })
        let notifyCommand = NotifyCommandSetting(configuration.notifyCommand)
        serviceList.append(
            MessageNotifier(
                events: events, setting: notifyCommand,
                // Not for blocked peers, nor for message requests (PRODUCT.md §6).
                wants: { key in !directory.isBlocked(key) },
                inRequest: { key in directory.entry(key)?.record.hasPendingRequest == true },
                group: { id in
                    (try? await store.group(id)).map { ($0.state.name, $0.requestFrom != nil) }
                },
                displayName: { directory.entry($0)?.displayName ?? Fingerprint.keyTag($0) },
                clock: clock, logger: logger))
        if let reload {
            await serviceList.append(
                ConfigurationReload(
                    inputs: reload, running: configuration,
                    targets: .init(
                        staticPeers: staticPeers, directory: directory, profile: profile,
                        presenceFile: presenceFile, links: registry, connections: connections,
                        announcer: announcer,
                        notifyCommand: notifyCommand,
                        readReceipts: readReceipts, clock: clock, mdns: mdns,
                        arrivalScope: transport.arrivalScope),
                    outcome: reloadOutcome, logger: logger
                ).service())
        }
        let notifier = SystemdNotifier(environment: environment)
        if let interval = SystemdNotifier.watchdogInterval(environment: environment) {
            serviceList.append(
                TaskService(description: "watchdog") {
                    while !Task.isCancelled {
                        notifier.notify("WATCHDOG=1")
                        try await clock.sleepUntil(clock.monotonic() + interval)
                    }
                })
        }
        if notifier.isActive {
            serviceList.append(
                TaskService(description: "systemd status") {
                    // STATUS= as systemctl shows it: what a user wants at a glance.
                    var last = ""
                    while !Task.isCancelled {
                        let queued = (try? await store.counts().queued) ?? 0
                        let line =
                            "\(directory.onlineCount) peers online, \(queued) messages queued"
                        if line != last {
                            notifier.notify("STATUS=" + line)
                            last = line
                        }
                        try await clock.sleepUntil(clock.monotonic() + .seconds(2))
                    }
                })
        }
        serviceList.append(
            TaskService(description: "handshake failure counts") {
                // A flood of failed handshakes logs one line per address every 10 s; what
                // was held back is said here even when that address stays silent after.
                while !Task.isCancelled {
                    try await clock.sleepUntil(clock.monotonic() + .seconds(10))
                    transport.logHeldBackHandshakeFailures()
                }
            })
        // Every link's work; stopped after the sessions below were closed.
        serviceList.append(registry)
        serviceList.append(TypingIndicator(events: events, feed: eventFeed, clock: clock))
        serviceList.append(
            TaskService(description: "event log retention") {
                // PRODUCT.md §4: at least the newest 100 000 events or 30 days, whichever
                // keeps more. Checked at start and then hourly.
                while !Task.isCancelled {
                    let cutoff = clock.wallMilliseconds() - EventRetention.age
                    do {
                        try await store.pruneEvents(
                            keepAtLeast: EventRetention.count, newerThan: cutoff)
                    } catch {
                        logger.error("cannot prune the event log: \(error)")
                    }
                    try await clock.sleepUntil(clock.monotonic() + .seconds(3600))
                }
            })
        serviceList.append(
            TaskService(description: "listener") {
                // "sessions" closes the socket while the group is still stopping the services
                // after this one: returning then would be a service that "finished
                // unexpectedly" (exit 1 on a clean stop), so wait for this one's own turn.
                try await listener.run(delegate: registry)
                try await gracefulShutdown()
            })
        serviceList.append(
            ShutdownService(description: "sessions") {
                // Peers must see us go, not come back: no new dials, connections or
                // sessions, then CLOSE(shutdown) on every session, inbound ones included
                // (cancelling the listener first dropped those without a CLOSE).
                notifier.notify("STOPPING=1")
                await connections.stopDialling()
                registry.refuseNewSessions()
                await listener.close()
                await registry.closeAll(.shutdown)
            })
        let group = ServiceGroup(
            configuration: .init(
                // A service that returns early is not an error by itself; one that fails
                // stops the daemon cleanly.
                services: serviceList.map {
                    ServiceGroupConfiguration.ServiceConfiguration(
                        service: $0, successTerminationBehavior: .ignore,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                },
                gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
                cancellationSignals: [],
                logger: logger))
        return Daemon(
            configuration: configuration, identityKey: identity.publicKey,
            port: listener.port, messenger: messenger, registry: registry, group: group,
            logger: logger, notifier: notifier, lock: lock, store: store)
    }

    /// Runs until SIGTERM/SIGINT or `stop()`.
    public func run() async throws {
        notifier.notify("READY=1\nSTATUS=listening on port \(port), 0 peers online")
        logger.notice(
            "lanchatd \(LanChatVersion.current) ready",
            metadata: [
                "name": "\(configuration.name)", "key": "\(Fingerprint.keyTag(identityKey))",
                "port": "\(port)", "socket": "\(messenger.runtime.socketPath)",
            ])
        defer {
            // The directory is free for the next daemon once this one has stopped; the store
            // is checkpointed into its main file first (MessageStore.close). "stopped" comes
            // last, after anything that closing had to say (QA: a full disk's error came
            // after it).
            do {
                try store.close()
            } catch {
                logger.error("\(error)")
            }
            lock.release()
            logger.notice("lanchatd stopped")
        }
        try await group.run()
    }

    /// Begins the same clean stop as SIGTERM.
    public func stop() async {
        await group.triggerGracefulShutdown()
    }

    private static func loadIdentity(_ configuration: DaemonConfiguration, logger: Logger)
        throws(DaemonError) -> IdentityKeyPair
    {
        do {
            try Sodium.initialize()
        } catch {
            throw .identity("libsodium cannot be used: \(error)")
        }
        do {
            if configuration.resetIdentity {
                let (identity, moved) = try IdentityKeyPair.reset(
                    directory: configuration.dataDirectory)
                logger.warning(
                    "identity reset: new key \(Fingerprint.keyTag(identity.publicKey))\(moved.map { ", old key moved to \($0)" } ?? "")"
                )
                return identity
            }
            try refuseLostIdentity(configuration.dataDirectory)
            let (identity, created) = try IdentityKeyPair.loadOrCreate(
                directory: configuration.dataDirectory)
            if created {
                logger.notice(
                    "created a new identity key \(Fingerprint.keyTag(identity.publicKey))")
            }
            return identity
        } catch {
            throw .identity("\(error)")
        }
    }

    /// Only a first start creates a key by itself (PROTOCOL.md §5). A data directory whose
    /// store exists had a key: without `identity.key` (a store restored from a backup, which
    /// holds no key, or a deleted file) a new key would silently make this node a stranger to
    /// every contact, so the start is refused until the key is restored or
    /// `--reset-identity` asks for a new one.
    private static func refuseLostIdentity(_ directory: String) throws(DaemonError) {
        let keyPath = directory + "/" + IdentityKeyPair.fileName
        guard access(keyPath, F_OK) != 0, errno == ENOENT else { return }
        let store = directory + "/" + MessageStore.fileName
        // An empty file holds nothing a key was used for (SQLite writes its first page with
        // the schema).
        var info = stat()
        guard stat(store, &info) == 0, info.st_size > 0 else { return }
        throw .identity(
            "\(keyPath) is missing, but \(store) exists: this node had a key, and a new one "
                + "would make it a stranger to every contact. Restore identity.key from your "
                + "backup (lanchat backup does not copy it), or run lanchatd --reset-identity to "
                + "go on under a new key (each contact then sees a key change and can link it "
                + "with 'lanchat verify --link')")
    }

    /// `--repair-store`: a store that fails its integrity check is copied into a new one
    /// (`StoreRepair`) before the usual start; a sound one is left as it is.
    private static func repairStore(_ configuration: DaemonConfiguration, logger: Logger)
        throws(DaemonError)
    {
        let path = configuration.dataDirectory + "/" + MessageStore.fileName
        logger.notice("--repair-store: checking \(path) (this reads the whole file)")
        do {
            if let report = try StoreRepair.repairIfDamaged(
                path: path,
                marker: configuration.dataDirectory + "/" + StoreMarker.fileName,
                now: DaemonClock.system.wallMilliseconds(), keyTag: Fingerprint.keyTag)
            {
                logger.warning("repaired \(path): \(report.summary)")
                // A damaged table that gave nothing (all messages, say) must not pass as one
                // more warning: what it held is only in the damaged copy now.
                for table in report.emptied {
                    logger.error(
                        """
                        \(path): table \(table) was damaged and none of its rows could be read, \
                        through its b-tree or page by page; what it held is only in \
                        \(report.damagedCopy) now: keep that file
                        """)
                }
            } else {
                logger.notice("\(path) passes its integrity check: nothing to repair")
            }
        } catch {
            throw refusal(error)
        }
    }

    /// A store that cannot be used, as the start's refusal: damaged or too new (each says its
    /// way out) is the store's, anything else the data directory's.
    private static func refusal(_ error: StoreError) -> DaemonError {
        switch error.kind {
        case .corrupt, .tooNew: .store(error.description)
        case .unavailable, .notFound, .invalidText: .dataDirectory("\(error)")
        }
    }

    private static func openStore(_ configuration: DaemonConfiguration, owner: PeerKey)
        throws(DaemonError) -> MessageStore
    {
        do {
            // The marker beside the store lets a store that lost its history be noticed
            // (HistoryCheck) instead of run on as if it were new.
            return try MessageStore.open(
                path: configuration.dataDirectory + "/" + MessageStore.fileName,
                marker: configuration.dataDirectory + "/" + StoreMarker.fileName, owner: owner)
        } catch {
            // Each refusal says its way out (MessageStore.inspect, HistoryCheck).
            throw refusal(error)
        }
    }
}

/// How much of the event log is kept (PRODUCT.md §4).
enum EventRetention {
    static let count = 100_000
    /// 30 days, in milliseconds.
    static let age: Int64 = 30 * 24 * 3600 * 1000
}

/// Turns our profile into the mDNS advertisement (PROTOCOL.md §10) and hands it to the mDNS
/// backend, if there is one.
struct Announcer: Sendable {
    let key: PeerKey
    let port: UInt16
    let mdns: (any PeerDiscovery)?

    func advertisement(for profile: OwnProfile.Snapshot) -> Advertisement {
        Advertisement(
            instanceName: Advertisement.instanceName(
                displayName: profile.name, keyTag: Fingerprint.keyTag(key)),
            port: port, key: key, status: profile.status, statusText: profile.statusText)
    }

    func announce(_ profile: OwnProfile.Snapshot) {
        mdns?.announce(advertisement(for: profile))
    }
}
