import LanChatControl
import LanChatCore
import LanChatCrypto
import LanChatStore
import Synchronization

/// The daemon's live view of every peer: the pin store's records (loaded once, then kept in
/// step with every write the daemon makes) plus presence. Lookups are synchronous (a lock,
/// no suspension) because the identity decision and PEER resolution sit on hot paths.
///
/// Ownership: the store is the source of truth for records; the directory is updated by
/// whoever writes them (the links and the control handlers), always after the write.
final class PeerDirectory: Sendable {
    private let entries: Mutex<[PeerKey: PeerEntry]>
    let ownKey: PeerKey

    init(ownKey: PeerKey, records: [PeerRecord]) {
        self.ownKey = ownKey
        var map: [PeerKey: PeerEntry] = [:]
        for record in records where record.key != ownKey {
            map[record.key] = PeerEntry(record: record)
        }
        entries = Mutex(map)
    }

    func entry(_ key: PeerKey) -> PeerEntry? {
        entries.withLock { $0[key] }
    }

    var all: [PeerEntry] {
        entries.withLock { Array($0.values) }
    }

    /// Resolves a PEER argument among pinned peers (a key seen only in an mDNS record is not
    /// a send target until its handshake proved it).
    func resolve(_ query: String) throws(ControlError) -> PeerEntry {
        try PeerResolver.resolve(query, among: all.filter(\.pinned))
    }

    func isBlocked(_ key: PeerKey) -> Bool {
        entries.withLock { $0[key]?.record.trust == .blocked }
    }

    var onlineCount: Int {
        entries.withLock { $0.values.filter { $0.sessions > 0 }.count }
    }

    /// Inserts or replaces the record (after the store was written): the key is pinned.
    func update(_ record: PeerRecord) {
        entries.withLock { map in
            map[record.key, default: PeerEntry(record: record)].record = record
            map[record.key]?.pinned = true
        }
    }

    /// Whether the pin store knows this key.
    func isPinned(_ key: PeerKey) -> Bool {
        entries.withLock { $0[key]?.pinned ?? false }
    }

    /// Applies `change` to the record of `key` if it is known. Returns the new entry.
    @discardableResult
    func modify(_ key: PeerKey, _ change: (inout PeerEntry) -> Void) -> PeerEntry? {
        entries.withLock { map in
            guard var entry = map[key] else { return nil }
            change(&entry)
            map[key] = entry
            return entry
        }
    }

    /// Counts a session up or down; returns the presence before and after. `peerShutDown`:
    /// the session ending was closed by the peer with CLOSE(shutdown).
    @discardableResult
    func sessionCountChanged(
        _ key: PeerKey, by delta: Int, at now: Int64, peerShutDown: Bool = false
    ) -> (before: Presence, after: Presence)? {
        entries.withLock { map in
            guard var entry = map[key] else { return nil }
            let before = entry.presence
            entry.sessions = max(0, entry.sessions + delta)
            if delta > 0 {
                entry.awaitingHandshake = false
                entry.shutDown = false
            } else if peerShutDown, entry.sessions == 0 {
                entry.awaitingHandshake = false
                entry.shutDown = true
            }
            entry.record.lastSeen = now
            map[key] = entry
            return (before, entry.presence)
        }
    }

    /// A discovery record announcing `key` appeared or went away. An unknown key gets a
    /// transient entry (not pinned: TXT is never trusted) so `who --all` can show it as
    /// discovering until the handshake proves it.
    func announcement(
        _ instance: ServiceInstance, of key: PeerKey, present: Bool, hostName: String?,
        endpoints: [Endpoint] = [], now: Int64
    ) {
        entries.withLock { map in
            if map[key] == nil, present, key != ownKey {
                var entry = PeerEntry(
                    record: PeerRecord(
                        key: key, keyTag: Self.keyTag(key),
                        name: Advertisement.displayName(fromInstanceName: instance.name),
                        firstSeen: now))
                entry.pinned = false
                map[key] = entry
            }
            guard var entry = map[key] else { return }
            if present {
                entry.announcements.insert(instance)
                entry.hostName = hostName ?? entry.hostName
                entry.announcedEndpoints = endpoints
                if entry.sessions == 0 && !entry.shutDown { entry.awaitingHandshake = true }
            } else {
                entry.withdraw(instance)
            }
            map[key] = entry
        }
    }

    /// Forgets `instance` for whichever key it announced; a transient entry with no record
    /// left disappears.
    func withdraw(_ instance: ServiceInstance) {
        entries.withLock { map in
            for (key, entry) in map where entry.announcements.contains(instance) {
                map[key]?.withdraw(instance)
                if !entry.pinned, map[key]?.announcements.isEmpty == true, entry.sessions == 0 {
                    map[key] = nil
                }
            }
        }
    }
}

extension PeerDirectory {
    static func keyTag(_ key: PeerKey) -> String { Fingerprint.keyTag(key) }
}
