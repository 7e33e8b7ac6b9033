internal import CAvahi
import LanChatCore
import Logging

/// The Avahi backend's live state: the client, entry group, browser and resolvers, and the
/// pure models (`ClientLifecycle`, `PublicationState`, `InstanceTable`) that decide what to
/// do with them.
///
/// Confinement: every member is used only on Avahi's poll thread (callbacks and timers) or by
/// another thread holding the poll lock (`AvahiRuntime.start`/`stop`); the one exception, the
/// mailbox, is itself thread-safe. That lock is why `@unchecked Sendable` is true. Callbacks record what happened and either act at once (browse and
/// resolve results) or arm the reconcile timer, so no Avahi object is freed from inside its
/// own client's or browser's callback.
final class AvahiEngine: @unchecked Sendable {
    let configuration: AvahiDiscovery.Configuration
    let logger: Logger
    /// `--interface`; replaced on the poll thread when SIGHUP changes it (`useInterfaces`).
    var filter: InterfaceFilter
    let api: UnsafePointer<AvahiPoll>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    /// Where `announce` leaves advertisements; read when `announcementWatch` fires.
    let mailbox: AnnouncementMailbox

    var lifecycle = ClientLifecycle()
    var publication = PublicationState()
    var table: InstanceTable

    var client: ClientHandle?
    /// The client's last reported condition; nil while there is no client.
    var condition: ClientCondition?
    var group: EntryGroupHandle?
    /// The interface indices the service is registered on (`AVAHI_IF_UNSPEC` for all).
    var publishedInterfaces: [Int32] = []
    var browser: ServiceBrowserHandle?
    var resolvers: [SlotKey: ServiceResolverHandle] = [:]
    var slotsByResolver: [OpaquePointer: SlotKey] = [:]
    /// How each tracked slot is resolved, kept while it has a resolver or waits for a retry.
    var resolveRequests: [SlotKey: ResolveRequest] = [:]
    /// Slots whose resolve failed, waiting to be resolved again.
    var resolveRetries = ResolveRetries<ResolveRequest>()
    /// The time for `resolveRetries`; a parameter so the engine's clock is the caller's.
    let now: @Sendable () -> ContinuousClock.Instant
    /// Interface names by index, remembered so a REMOVE can be matched after the interface
    /// itself is gone.
    var interfaceNames: [Int32: String] = [:]
    /// True while the instance table is full and that has been logged.
    var warnedTableFull = false

    // Facts recorded by callbacks for the next reconcile pass.
    var pendingCondition: ClientCondition?
    /// A browser failure of the client with this identity.
    var pendingBrowserFailure: (client: ObjectIdentifier, reason: String)?
    var pendingCollision: OpaquePointer?
    var publishRequested = false
    /// The delay before publishing is tried again after a failure; doubles per failure up to
    /// `maxPublishRetryMilliseconds`, back to the start once the entry group is established.
    var publishRetryMilliseconds = AvahiEngine.firstPublishRetryMilliseconds
    static let firstPublishRetryMilliseconds = 1_000
    static let maxPublishRetryMilliseconds = 30_000
    /// A new `--interface` list from the mailbox, applied on the next reconcile pass.
    var pendingFilter: InterfaceFilter?

    private var announcementWatch: PollWatch?
    private var reconcileTimer: PollTimer?
    private var reconnectTimer: PollTimer?
    var resolveRetryTimer: PollTimer?
    private var isShutDown = false

    init(
        configuration: AvahiDiscovery.Configuration, logger: Logger, api: UnsafePointer<AvahiPoll>,
        mailbox: AnnouncementMailbox, continuation: AsyncStream<DiscoveryEvent>.Continuation,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.now = now
        self.mailbox = mailbox
        self.configuration = configuration
        self.logger = logger
        self.filter = InterfaceFilter(allowedNames: configuration.interfaces)
        self.api = api
        self.continuation = continuation
        self.table = InstanceTable(
            ownKey: configuration.ownKey, capacity: configuration.maxTrackedInstances)
    }

    var context: UnsafeMutableRawPointer { AvahiCallbacks.context(for: self) }

    // MARK: Entry points from AvahiRuntime (poll lock held) and the mailbox

    /// Creates the timers, the mailbox watch and the first client. Throws only if a timer or
    /// watch cannot be created.
    func start() throws {
        announcementWatch = try PollWatch(
            api: api, readable: mailbox.readDescriptor, context: context,
            callback: AvahiCallbacks.mailbox)
        reconcileTimer = try PollTimer(
            api: api, context: context, callback: AvahiCallbacks.reconcileTimer)
        reconnectTimer = try PollTimer(
            api: api, context: context, callback: AvahiCallbacks.reconnectTimer)
        resolveRetryTimer = try PollTimer(
            api: api, context: context, callback: AvahiCallbacks.resolveRetryTimer)
        connect()
    }

    /// Mailbox watch: the daemon announced or changed the interfaces; act on the next
    /// reconcile pass.
    func announcementArrived() {
        let delivery = mailbox.take()
        if let advertisement = delivery.advertisement {
            publication.announce(advertisement)
            publishRequested = true
        }
        if let interfaces = delivery.interfaces {
            pendingFilter = InterfaceFilter(allowedNames: interfaces)
        }
        if delivery.advertisement != nil || delivery.interfaces != nil { scheduleReconcile() }
    }

    /// Withdraws the record (the reset makes avahi-daemon send goodbye packets), then frees
    /// every Avahi object. Nothing runs after this.
    func shutdown() {
        isShutDown = true
        announcementWatch = nil
        reconcileTimer = nil
        reconnectTimer = nil
        resolveRetryTimer = nil
        withdraw()
        freeAvahiObjects()
        logger.debug("mDNS discovery stopped")
    }

    // MARK: Client lifecycle

    /// Reconnect timer: a client that still waits in CONNECTING is replaced (see
    /// `LifecycleAction.replaceIfStillConnecting`); then a client is created if there is none.
    func reconnectTimerFired() {
        if client != nil, condition == .connecting, pendingCondition == nil {
            logger.debug("avahi client still connecting; asking avahi-daemon again")
            freeAvahiObjects()
            emit(table.removeAll())
        }
        connect()
    }

    /// Creates a client (reconnect timer, or start). The client reports its state through
    /// `clientDidChange`, possibly before `avahi_client_new` returns.
    func connect() {
        guard client == nil, !isShutDown else { return }
        switch ClientHandle.connect(api: api, context: context, callback: AvahiCallbacks.client) {
        case .success(let created):
            client = created
        case .failure(let error):
            pendingCondition = nil
            perform(lifecycle.clientCreationFailed(error.avahiReason))
        }
    }

    /// Client callback: record the condition and handle it on the next reconcile pass.
    func clientDidChange(state: AvahiClientState, error: Int32) {
        switch state {
        case AVAHI_CLIENT_CONNECTING: pendingCondition = .connecting
        case AVAHI_CLIENT_S_REGISTERING: pendingCondition = .registering
        case AVAHI_CLIENT_S_RUNNING: pendingCondition = .running
        case AVAHI_CLIENT_S_COLLISION: pendingCondition = .hostNameCollision
        case AVAHI_CLIENT_FAILURE:
            pendingCondition =
                error == Int32(AVAHI_ERR_DISCONNECTED)
                ? .disconnected : .failed(AvahiErrorText.describe(error))
        default:
            logger.debug("avahi client reported unknown state \(state.rawValue)")
            return
        }
        scheduleReconcile()
    }

    func scheduleReconcile() {
        reconcileTimer?.schedule(afterMilliseconds: 0)
    }

    /// Publishing failed for a reason that may pass (avahi-daemon or D-Bus too busy to
    /// answer: seen with 50 daemons on 2 cores). Without a retry the node stayed unpublished,
    /// invisible to every other node, until something else changed.
    func retryPublishingLater() {
        publishRequested = true
        reconcileTimer?.schedule(afterMilliseconds: publishRetryMilliseconds)
        logger.info("publishing again in \(publishRetryMilliseconds) ms")
        publishRetryMilliseconds = min(
            2 * publishRetryMilliseconds, Self.maxPublishRetryMilliseconds)
    }

    /// Reconcile timer: acts on what callbacks recorded, in a context where freeing and
    /// creating Avahi objects is safe.
    func reconcile() {
        guard !isShutDown else { return }
        if let newCondition = pendingCondition {
            pendingCondition = nil
            condition = newCondition
            perform(lifecycle.clientChanged(to: newCondition))
        }
        if let failure = pendingBrowserFailure {
            pendingBrowserFailure = nil
            if let client, ObjectIdentifier(client) == failure.client {
                perform(lifecycle.browsingFailed(failure.reason))
            }
        }
        if let collided = pendingCollision {
            pendingCollision = nil
            if group?.pointer == collided { renameAfterCollision() }
        }
        if let newFilter = pendingFilter {
            pendingFilter = nil
            useInterfaces(newFilter)
        }
        if publishRequested {
            publishRequested = false
            publishIfPossible()
        }
    }

    func perform(_ actions: [LifecycleAction]) {
        for action in actions {
            switch action {
            case .report(let state):
                continuation.yield(.stateChanged(state))
            case .warnPaused(.daemonAbsent):
                logger.warning(
                    "avahi-daemon is not running; mDNS discovery paused, static peers still work")
            case .warnPaused(.clientUnavailable(let reason)):
                if SystemBus.isMissing() {
                    // libavahi says "Daemon not running" of the bus too (found by QA: the
                    // log blamed avahi-daemon): the bus is what to start first.
                    logger.warning(
                        "the system D-Bus is not running (no \(SystemBus.socketPath); sudo systemctl start dbus), so avahi-daemon cannot be reached; mDNS discovery paused, static peers still work"
                    )
                } else {
                    logger.warning(
                        "cannot reach avahi-daemon over D-Bus (\(reason)); mDNS discovery paused, static peers still work"
                    )
                }
            case .noteResumed:
                logger.notice("avahi-daemon is available; mDNS discovery resumed")
            case .startBrowsing:
                startBrowsing()
            case .publish:
                publishIfPossible()
            case .withdraw:
                withdraw()
            case .discardClient:
                freeAvahiObjects()
                emit(table.removeAll())
            case .reconnect(let delay):
                logger.debug("reconnecting to avahi-daemon in \(delay) ms")
                reconnectTimer?.schedule(afterMilliseconds: delay)
            case .replaceIfStillConnecting(let delay):
                reconnectTimer?.schedule(afterMilliseconds: delay)
            case .logFailure(let reason):
                logger.error("avahi client failed: \(reason); reconnecting")
            }
        }
    }

    /// Frees resolvers, browser, entry group and client, children first.
    private func freeAvahiObjects() {
        resolvers = [:]
        slotsByResolver = [:]
        resolveRequests = [:]
        resolveRetries.cancelAll()
        resolveRetryTimer?.cancel()
        browser = nil
        group = nil
        publishedInterfaces = []
        publication.withdrawn()
        client = nil
        condition = nil
    }

    func emit(_ events: [DiscoveryEvent]) {
        for event in events { continuation.yield(event) }
    }
}

extension AvahiDiscoveryError {
    /// The `avahi_strerror` text of a failed libavahi call, for log lines.
    var avahiReason: String {
        switch code {
        case .avahi(_, let code): AvahiErrorText.describe(code)
        case .systemCall, .alreadyRun: description
        }
    }

    /// The libavahi error code, if this is a failed libavahi call.
    var avahiCode: Int32? {
        if case .avahi(_, let code) = code { return code }
        return nil
    }
}
