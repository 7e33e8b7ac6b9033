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
        /// A peer we have a session with, dialled once more so that a new session (and its
        /// HELLO) replaces the current one: our display name changed, and HELLO is the only
        /// authenticated carrier of a name (PROTOCOL.md §3.9, a planned re-handshake). One
        /// attempt: dropped once it ends, however it ends.
        case renewal
    }

    let instance: ServiceInstance
    var kind: Kind
    var endpoints: [Endpoint]
    var hostName: String
    /// The key the record announced (TXT `id`, or `--peer ID@…`).
    var announcedKey: PeerKey? = nil
    /// The key proven by the last session to this target (static peers without an id).
    var learnedKey: PeerKey?
    var backoff = RedialBackoff()
    var nextAttempt: ContinuousClock.Instant
    var dialling = false
    /// Still wanted: a target whose record was lost while dialling is removed when done.
    var wanted = true

    var key: PeerKey? { announcedKey ?? learnedKey }
}

/// (address, port) pairs that presented another key than the one expected there: not
/// redialled for that expected key for an hour (PROTOCOL.md §4.6, §3.8 rows 4 and 5). Kept by
/// the connection manager, not by a discovery record, so a re-published record does not
/// escape it and a record announcing another key is not held back by it.
struct BadAddresses: Sendable {
    static let penalty: Duration = .seconds(3600)

    private struct Entry: Hashable {
        let endpoint: Endpoint
        let expected: PeerKey?
    }

    private var until: [Entry: ContinuousClock.Instant] = [:]

    mutating func mark(
        _ endpoint: Endpoint, expecting key: PeerKey?, at now: ContinuousClock.Instant
    ) {
        until = until.filter { $0.value > now }
        until[Entry(endpoint: endpoint, expected: key)] = now + Self.penalty
    }

    /// The endpoints not held back for `key`, in order, and when the next one is released.
    func usable(_ endpoints: [Endpoint], expecting key: PeerKey?, at now: ContinuousClock.Instant)
        -> (usable: [Endpoint], nextRelease: ContinuousClock.Instant?)
    {
        var usable: [Endpoint] = []
        var nextRelease: ContinuousClock.Instant?
        for endpoint in endpoints {
            if let release = until[Entry(endpoint: endpoint, expected: key)], release > now {
                nextRelease = min(nextRelease ?? release, release)
            } else {
                usable.append(endpoint)
            }
        }
        return (usable, nextRelease)
    }
}
