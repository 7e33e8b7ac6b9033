import LanChatCore

/// Somewhere we keep (or try to keep) a session: a static `--peer`, a discovered service, or
/// the last known addresses of an offline peer with queued messages.
struct DialTarget: Sendable {
    enum Kind: Sendable {
        /// `--peer` or a resolved mDNS service: dialled for as long as it is configured or
        /// announced (eager sessions, PROTOCOL.md §10).
        case announced
        /// A known peer's stored addresses, dialled because messages wait for it; dropped
        /// once a session with it came up.
        case outbox
    }

    let instance: ServiceInstance
    var kind: Kind
    var endpoints: [Endpoint]
    var hostName: String
    /// The key the record announced (TXT `id`, or `--peer ID@…`).
    var announcedKey: PeerKey?
    /// The key proven by the last session to this target (static peers without an id).
    var learnedKey: PeerKey?
    var backoff = RedialBackoff()
    var nextAttempt = ContinuousClock.now
    var dialling = false
    /// (address, expected key) pairs that presented another key: not redialled for 1 h
    /// (PROTOCOL.md §4.6, §3.8 rows 4 and 5).
    var badUntil: [Endpoint: ContinuousClock.Instant] = [:]
    /// Still wanted: a target whose record was lost while dialling is removed when done.
    var wanted = true

    var key: PeerKey? { announcedKey ?? learnedKey }

    /// The endpoints worth trying now, in order.
    func usableEndpoints(at now: ContinuousClock.Instant) -> [Endpoint] {
        endpoints.filter { endpoint in badUntil[endpoint].map { $0 <= now } ?? true }
    }
}
