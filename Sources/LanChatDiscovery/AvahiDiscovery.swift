import LanChatCore
import Logging
import ServiceLifecycle
import Synchronization

/// mDNS discovery and publication of `_lanchat._tcp` through avahi-daemon (libavahi-client on
/// a threaded poll), as PROTOCOL.md §3.3 and §10 and PRODUCT.md §3 describe.
///
/// * Starts whether or not avahi-daemon runs (`AVAHI_CLIENT_NO_FAIL`): logs one warning per
///   outage, reports `.connecting`, and publishes as soon as the daemon appears or returns.
/// * Publishes the advertisement on every allowed interface; renames on a name collision.
/// * Browses and resolves IPv4 and IPv6, skipping loopback, interfaces not configured, our
///   own key and invalid TXT records; tracks at most `maxTrackedInstances` services.
///
/// Ownership: the daemon calls `run()` once (it is a `Service`) and consumes `events` from one
/// task; `announce` and `useInterfaces` may be called from any task, before or during `run()`.
public final class AvahiDiscovery: PeerDiscovery, Service {
    public struct Configuration: Hashable, Sendable {
        /// Our own key: records carrying it are ignored.
        public var ownKey: PeerKey
        /// `--interface` names; empty means every interface Avahi uses except loopback.
        public var interfaces: [String]
        /// The DNS-SD service type; tests may use their own.
        public var serviceType: String
        /// The most service instances tracked at once (PROTOCOL.md §7.3 item 46).
        public var maxTrackedInstances: Int

        public init(
            ownKey: PeerKey, interfaces: [String] = [], serviceType: String = "_lanchat._tcp",
            maxTrackedInstances: Int = 1_024
        ) {
            self.ownKey = ownKey
            self.interfaces = interfaces
            self.serviceType = serviceType
            self.maxTrackedInstances = maxTrackedInstances
        }
    }

    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let configuration: Configuration
    private let logger: Logger
    private let state = Mutex(SharedState())

    private struct SharedState: Sendable {
        enum Phase: Sendable {
            case idle
            case running(AvahiRuntime)
            case finished
        }
        var phase = Phase.idle
        /// The latest advertisement, kept for a `run()` that has not started yet.
        var advertisement: Advertisement?
        /// Interfaces given by `useInterfaces`, kept likewise; nil: the configuration's.
        var interfaces: [String]?
    }

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
    }

    /// Publishes or updates the advertisement. Before `run()` it is kept; while avahi-daemon is
    /// absent it is published as soon as the daemon appears. Never blocks on Avahi.
    public func announce(_ advertisement: Advertisement) {
        state.withLock { state in
            state.advertisement = advertisement
            if case .running(let runtime) = state.phase { runtime.announce(advertisement) }
        }
    }

    /// Changes `--interface` while running (SIGHUP): the record is published on exactly the
    /// new set (withdrawn where no longer allowed), services seen only on interfaces no longer
    /// allowed are reported `.lost`, and those on newly allowed ones are reported. Never
    /// blocks on Avahi.
    public func useInterfaces(_ names: [String]) {
        state.withLock { state in
            state.interfaces = names
            if case .running(let runtime) = state.phase { runtime.useInterfaces(names) }
        }
    }

    /// Runs until the task is cancelled or graceful shutdown begins, then withdraws the record
    /// (goodbye packets), frees the Avahi client and finishes `events`. Throws only when it
    /// cannot start at all (no memory, no thread) or when called twice.
    public func run() async throws {
        let runtime: AvahiRuntime
        do {
            runtime = try AvahiRuntime(
                configuration: configuration, logger: logger, continuation: continuation)
        } catch {
            finishUnlessRunning()
            throw error
        }
        try state.withLock { state throws(AvahiDiscoveryError) in
            guard case .idle = state.phase else { throw AvahiDiscoveryError(.alreadyRun) }
            state.phase = .running(runtime)
            // Under the state lock, so a concurrent `announce` cannot be overtaken by this one.
            if let advertisement = state.advertisement { runtime.announce(advertisement) }
            if let interfaces = state.interfaces { runtime.useInterfaces(interfaces) }
        }
        do {
            try runtime.start()
        } catch {
            state.withLock { $0.phase = .finished }
            continuation.finish()
            throw error
        }
        logger.debug("mDNS discovery started for \(configuration.serviceType)")
        // Returns on graceful shutdown, throws on cancellation: both mean stop.
        try? await gracefulShutdown()
        state.withLock { $0.phase = .finished }
        runtime.stop()
        continuation.finish()
    }

    /// Finishes `events` after a failed start, unless another `run()` owns them.
    private func finishUnlessRunning() {
        let owned = state.withLock { state -> Bool in
            guard case .idle = state.phase else { return false }
            state.phase = .finished
            return true
        }
        if owned { continuation.finish() }
    }
}
