import LanChatControl
import LanChatCore
import LanChatStore

/// What the daemon knows about one peer key: the pinned record from the store plus live
/// presence, which is never stored (PROTOCOL.md §10).
struct PeerEntry: Sendable, Equatable {
    var record: PeerRecord
    /// Number of authenticated sessions with this key right now (normally 0 or 1; briefly 2
    /// during a simultaneous dial).
    var sessions = 0
    /// Discovery records currently announcing this key (mDNS instances or static peers).
    var announcements: Set<ServiceInstance> = []
    /// The host name the peer's service last resolved to (a label, for `who QUERY`).
    var hostName: String?

    var key: PeerKey { record.key }

    var presence: Presence {
        if sessions > 0 { return .online }
        return announcements.isEmpty ? .offline : .discovering
    }

    /// The name to show: alias, else display name, else the key tag.
    var displayName: String {
        if let alias = record.alias, !alias.isEmpty { return alias }
        return record.name.isEmpty ? record.keyTag : record.name
    }

    var info: PeerInfo {
        PeerInfo(
            id: record.key.id, keyTag: record.keyTag, name: record.name, alias: record.alias,
            presence: presence, status: Availability(rawValue: record.status) ?? .available,
            statusText: record.statusText,
            trust: Trust(rawValue: record.trust.rawValue) ?? .unverified,
            contact: record.contact,
            lastSeen: presence == .online
                ? nil : record.lastSeen.map(Timestamp.init(millisecondsSince1970:)),
            addresses: record.addresses.map(\.description))
    }

    var candidate: PeerCandidate {
        PeerCandidate(
            id: record.key.id, keyTag: record.keyTag, name: record.name, alias: record.alias)
    }
}
