import LanChatControl
import LanChatCore
import LanChatStore

/// What the daemon knows about one peer key: the pinned record from the store plus live
/// presence, which is never stored (PROTOCOL.md §10).
struct PeerEntry: Sendable, Equatable {
    var record: PeerRecord
    /// False for a key seen only in a discovery record and not yet proven in a handshake:
    /// shown as `discovering` by `who --all`, never pinned, never a send target.
    var pinned = true
    /// Number of authenticated sessions with this key right now (normally 0 or 1; briefly 2
    /// during a simultaneous dial).
    var sessions = 0
    /// Discovery records currently announcing this key (mDNS instances or static peers).
    var announcements: Set<ServiceInstance> = []
    /// A record was (re)resolved and no session has been up since: `discovering`. A closed
    /// session makes the peer offline at once even while its record lingers in the mDNS
    /// cache (PROTOCOL.md §10), so session starts clear this.
    var awaitingHandshake = false
    /// The peer closed its last session saying it is shutting down. Its record may still be
    /// resolved in the second before its goodbye takes effect (RFC 6762 §10.1); such a
    /// record is the departing peer's, not a new start, so it does not make it discovering.
    /// Cleared when its records are withdrawn or a session comes up.
    var shutDown = false
    /// The host name the peer's service last resolved to (a label, for `who QUERY`).
    var hostName: String?
    /// Addresses the discovery records resolved to, best first (shown, not stored).
    var announcedEndpoints: [Endpoint] = []
    /// The last time this pinned key was dialled and another key answered (PROTOCOL.md §3.8
    /// row 4): shown as a warning until a session with this key opens. Not stored: the next
    /// dial after a restart finds it again.
    var identityAlert: IdentityAlert?

    var key: PeerKey { record.key }

    /// `instance` no longer announces this key; with no record left, a later one is a new
    /// start again, even after a shutdown.
    mutating func withdraw(_ instance: ServiceInstance) {
        announcements.remove(instance)
        if announcements.isEmpty { shutDown = false }
    }

    var presence: Presence {
        if sessions > 0 { return .online }
        return !announcements.isEmpty && awaitingHandshake ? .discovering : .offline
    }

    /// The name to show: alias, else display name, else the key tag.
    var displayName: String {
        if let alias = record.alias, !alias.isEmpty { return alias }
        return record.name.isEmpty ? record.keyTag : record.name
    }

    /// How messages name it: `bob (BBBB-2222)`, the key tag telling apart peers of one name.
    var labelled: String { "\(displayName) (\(record.keyTag))" }

    var info: PeerInfo {
        PeerInfo(
            id: record.key.id, keyTag: record.keyTag, name: record.name, alias: record.alias,
            presence: presence, status: Availability(rawValue: record.status) ?? .available,
            statusText: record.statusText,
            trust: Trust(rawValue: record.trust.rawValue) ?? .unverified,
            contact: record.contact,
            lastSeen: presence == .online
                ? nil : record.lastSeen.map(Timestamp.init(millisecondsSince1970:)),
            addresses: Self.unique(announcedEndpoints + record.addresses).map(\.description))
    }

    private static func unique(_ endpoints: [Endpoint]) -> [Endpoint] {
        var seen = Set<Endpoint>()
        return endpoints.filter { seen.insert($0).inserted }
    }

    var candidate: PeerCandidate {
        PeerCandidate(
            id: record.key.id, keyTag: record.keyTag, name: record.name, alias: record.alias)
    }
}

/// Where a pinned key was dialled and which key answered instead (PROTOCOL.md §3.8 row 4).
struct IdentityAlert: Sendable, Equatable {
    var address: Endpoint?
    var presented: PeerKey
    var at: Int64
}
