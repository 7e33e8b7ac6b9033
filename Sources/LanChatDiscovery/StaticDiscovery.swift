import LanChatCore

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
    private let peers: [Peer]

    public init(peers: [Peer]) {
        self.peers = peers
        (events, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
    }

    /// Nothing to publish without mDNS: a static peer is reached by its address.
    public func announce(_ advertisement: Advertisement) {}

    public func run() async throws {
        for peer in peers {
            continuation.yield(
                .found(
                    DiscoveredPeer(
                        instance: ServiceInstance(name: "static \(peer.endpoint)", interface: nil),
                        hostName: peer.endpoint.host, endpoints: [peer.endpoint],
                        announcement: peer.key.map {
                            PeerAnnouncement(
                                key: $0, maxVersion: 1, status: .available, statusText: "")
                        })))
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
