import LanChatCore
import Synchronization

/// The static peers of `--peer [ID@]HOST:PORT`, for networks where multicast does not pass
/// (other subnets, VLANs, Wi-Fi isolation). A real discovery backend: it reports each peer
/// once as found, and the daemon dials it like any discovered service. In-process tests use
/// it to connect daemons on 127.0.0.1 without mDNS.
public final class StaticDiscovery: PeerDiscovery {
    public struct Peer: Sendable, Hashable {
        public var endpoint: Endpoint
        public var key: PeerKey?

        public init(endpoint: Endpoint, key: PeerKey?) {
            self.endpoint = endpoint
            self.key = key
        }
    }

    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    /// The peers configured now; `replace(with:)` changes them (SIGHUP).
    private let peers: Mutex<[Peer]>

    public init(peers: [Peer]) {
        self.peers = Mutex(peers)
        (events, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
    }

    /// A new list of static peers (a configuration reload): each new peer (or new key for an
    /// address) is reported found, each removed one lost, so it is no longer dialled; a
    /// session with it stays up. Events are queued for `run()`'s consumer like the first ones.
    public func replace(with newPeers: [Peer]) {
        let old = peers.withLock { current in
            defer { current = newPeers }
            return current
        }
        let newEndpoints = Set(newPeers.map(\.endpoint))
        for peer in old where !newEndpoints.contains(peer.endpoint) {
            continuation.yield(.lost(Self.instance(peer)))
        }
        for peer in newPeers where !old.contains(peer) {
            continuation.yield(.found(Self.discovered(peer)))
        }
    }

    private static func instance(_ peer: Peer) -> ServiceInstance {
        ServiceInstance(name: "static \(peer.endpoint)", interface: nil)
    }

    private static func discovered(_ peer: Peer) -> DiscoveredPeer {
        DiscoveredPeer(
            instance: instance(peer), hostName: peer.endpoint.host, endpoints: [peer.endpoint],
            announcement: peer.key.map {
                PeerAnnouncement(key: $0, maxVersion: 1, status: .available, statusText: "")
            })
    }

    /// Nothing to publish without mDNS: a static peer is reached by its address.
    public func announce(_ advertisement: Advertisement) {}

    public func run() async throws {
        for peer in peers.withLock({ $0 }) {
            continuation.yield(.found(Self.discovered(peer)))
        }
        // Static peers stay configured until the daemon stops.
        await withTaskCancellationHandler {
            await withCheckedContinuation { (wait: CheckedContinuation<Void, Never>) in
                onCancel.set(wait)
            }
        } onCancel: {
            onCancel.fire()
        }
        continuation.finish()
    }

    private let onCancel = CancellationLatch()
}
