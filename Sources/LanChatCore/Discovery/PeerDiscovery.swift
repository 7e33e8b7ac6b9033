/// A source of peers to dial and a place to announce ourselves. Implemented by
/// `AvahiDiscovery` (mDNS) and `StaticDiscovery` (`--peer`), both in LanChatDiscovery.
///
/// Ownership: the daemon calls `run()` once from its service group and consumes `events`
/// from exactly one task. `announce` may be called from any task at any time, before or
/// after `run()` starts.
public protocol PeerDiscovery: Sendable {
    /// Resolved and lost services and backend state changes, in the order they happened.
    var events: AsyncStream<DiscoveryEvent> { get }

    /// Publishes the advertisement, or updates it (TXT, name) if already published. With no
    /// backend (avahi-daemon absent) it is kept and published as soon as one appears.
    func announce(_ advertisement: Advertisement)

    /// Runs until the calling task is cancelled or graceful shutdown begins; on the way out
    /// it withdraws the record so peers see us leave, and finishes `events`.
    func run() async throws
}
