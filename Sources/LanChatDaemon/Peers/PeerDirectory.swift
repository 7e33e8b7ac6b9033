import LanChatControl
import LanChatCore
import LanChatCrypto
import LanChatStore
import Synchronization

/// The one owner of peer state: the pin store's records (loaded once at start) and live
/// presence. Every change to a peer record goes through a method here, which writes the
/// store and then the in-memory entry, so the two cannot drift; everyone else asks. Lookups
/// are synchronous (a lock, no suspension) because the identity decision and PEER resolution
/// sit on hot paths.
final class PeerDirectory: Sendable {
    private let entries: Mutex<[PeerKey: PeerEntry]>
    let persistence: any PeerPersistence
    /// `--accept`: whether messages from non-contacts become message requests.
    let acceptPolicy = Mutex(AcceptPolicy.anyone)
    let ownKey: PeerKey
    /// Our display name now (the profile's, told once it exists), so that a PEER naming us
    /// is answered as such rather than as no match.
    private let ownName = Mutex<@Sendable () -> String>({ "" })

    init(ownKey: PeerKey, records: [PeerRecord], persistence: any PeerPersistence) {
        self.ownKey = ownKey
        self.persistence = persistence
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
        do {
            return try PeerResolver.resolve(query, among: all.filter(\.pinned))
        } catch  where error.isPeerNotFound && namesOwnNode(query) {
            // Found by QA: "no peer matches 'alice'" of our own name, id or key tag.
            throw .ownNode(query)
        }
    }

    /// Whether `query` is our own id, key tag or display name.
    func namesOwnNode(_ query: String) -> Bool {
        PeerResolver.namesOwnNode(query, key: ownKey, name: ownName.withLock { $0 }())
    }

    /// Where our display name comes from (`OwnProfile`, made after the directory).
    func tellOwnName(_ source: @escaping @Sendable () -> String) {
        ownName.withLock { $0 = source }
    }

    func isBlocked(_ key: PeerKey) -> Bool {
        entries.withLock { $0[key]?.record.trust == .blocked }
    }

    var onlineCount: Int {
        entries.withLock { $0.values.filter { $0.sessions > 0 }.count }
    }

    /// Whether the pin store knows this key.
    func isPinned(_ key: PeerKey) -> Bool {
        entries.withLock { $0[key]?.pinned ?? false }
    }

    // MARK: Changes to records (store first, then memory; memory first where the write logs
    // an event whose peer the watch stream builds from the entry, taken back if it fails)

    /// Pins a proven key on first contact (TOFU, §3.8 row 6) as unverified. Returns false when
    /// it was pinned already. `insteadOf`: the key that was expected where this one answered
    /// (`notePresentedKey`), recorded with the pin as a key-change warning.
    func pinOnFirstContact(
        _ key: PeerKey, dialledAddress: Endpoint?, insteadOf expected: PeerKey? = nil,
        at now: Int64
    ) async throws(StoreError) -> Bool {
        guard !isPinned(key) else { return false }
        let keyTag = Self.keyTag(key)
        let warned: Bool
        if let expected {
            warned = try await persistence.pinPresentedKey(
                key, keyTag: keyTag, insteadOf: expected, endpoint: dialledAddress, at: now)
        } else {
            try await persistence.recordPeerSeen(
                key, keyTag: keyTag, name: nil, status: nil, statusText: nil,
                endpoint: dialledAddress, at: now)
            warned = false
        }
        // Two crossing sessions of a first contact both get here (found by QA: the log said
        // "new peer … pinned" twice): the one that pins it is the first contact.
        let record = PeerRecord(
            key: key, keyTag: keyTag, name: "", firstSeen: now, lastSeen: now,
            addresses: dialledAddress.map { [$0] } ?? [],
            keyChangedFrom: warned ? expected : nil)
        return entries.withLock { map in
            guard map[key]?.pinned != true else { return false }
            map[key, default: PeerEntry(record: record)].record = record
            map[key]?.pinned = true
            return true
        }
    }

    /// An address a dial of ours reached `key` at, proven by its handshake: `who` shows it
    /// and the next dial tries it first, also when this session closes as a duplicate of
    /// the peer's own dial (whose HELLO then says nothing of where the peer listens).
    /// Nothing is written when it is the address known first already.
    func recordDialledAddress(_ key: PeerKey, _ address: Endpoint, at now: Int64)
        async throws(StoreError)
    {
        guard entries.withLock({ $0[key]?.record.addresses.first }) != address else { return }
        modify(key) { entry in
            entry.record.addresses.removeAll { $0 == address }
            entry.record.addresses.insert(address, at: 0)
        }
        try await persistence.recordPeerSeen(
            key, keyTag: Self.keyTag(key), name: nil, status: nil, statusText: nil,
            endpoint: address, at: now)
    }

    /// Pins a key known before its first contact (`--peer ID@…`), so no TOFU window opens.
    /// Nothing changes for a key already pinned.
    func pinAhead(_ key: PeerKey, at now: Int64) async throws(StoreError) {
        guard key != ownKey, !isPinned(key) else { return }
        let keyTag = Self.keyTag(key)
        try await persistence.addPeer(key, keyTag: keyTag, name: nil, at: now)
        pin(PeerRecord(key: key, keyTag: keyTag, name: "", firstSeen: now))
    }

    /// What the peer's HELLO says about itself, and the address we reached it at. The entry
    /// shows it even when the store could not record it (the error is rethrown). The entry
    /// changes first: the write may log the peer's `peer.new`, and the watch stream it wakes
    /// builds the event's peer from this entry.
    func recordHello(
        _ key: PeerKey, name: String, status: String, statusText: String,
        dialledAddress: Endpoint?, at now: Int64
    ) async throws(StoreError) {
        modify(key) { entry in
            entry.record.name = name
            entry.record.status = status
            entry.record.statusText = statusText
            if let dialledAddress {
                entry.record.addresses.removeAll { $0 == dialledAddress }
                entry.record.addresses.insert(dialledAddress, at: 0)
            }
        }
        try await persistence.recordPeerSeen(
            key, keyTag: Self.keyTag(key), name: name, status: status,
            statusText: statusText, endpoint: dialledAddress, at: now)
    }

    /// A PRESENCE from the peer (§9.6). Shown even when the store could not record it.
    func recordPresence(_ key: PeerKey, status: String, statusText: String, at now: Int64)
        async throws(StoreError)
    {
        modify(key) { entry in
            entry.record.status = status
            entry.record.statusText = statusText
        }
        try await persistence.recordPeerSeen(
            key, keyTag: Self.keyTag(key), name: nil, status: status, statusText: statusText,
            endpoint: nil, at: now)
    }

    /// A session with `key` ended at `now`: stored as its last seen time. Runs even while the
    /// calling task is being cancelled (a session ending at shutdown); errors go to `failed`.
    func recordLastSeen(
        _ key: PeerKey, at now: Int64, failed: @escaping @Sendable (StoreError) -> Void
    ) {
        persistence.setLastSeen(key, at: now) { error in
            if let error { failed(error) }
        }
    }

    func pin(_ record: PeerRecord) {
        entries.withLock { map in
            map[record.key, default: PeerEntry(record: record)].record = record
            map[record.key]?.pinned = true
        }
    }

    /// Removes the entry of `key` made by `modifyOrMake` whose write failed, unless a session
    /// or a discovery record uses it meanwhile.
    func dropUnused(_ key: PeerKey) {
        entries.withLock { map in
            guard let entry = map[key], entry.sessions == 0, entry.announcements.isEmpty else {
                return
            }
            map[key] = nil
        }
    }

    /// Applies `change` to the entry of `key`, made (unnamed, first seen `now`) when there is
    /// none; returns the entry before (nil: there was none) and after.
    func modifyOrMake(_ key: PeerKey, at now: Int64, _ change: (inout PeerEntry) -> Void)
        -> (before: PeerEntry?, after: PeerEntry)
    {
        entries.withLock { map in
            let before = map[key]
            var entry =
                before
                ?? PeerEntry(
                    record: PeerRecord(key: key, keyTag: Self.keyTag(key), name: "", firstSeen: now)
                )
            change(&entry)
            map[key] = entry
            return (before, entry)
        }
    }

    /// Applies `change` to the live entry of `key` if it is known. Live facts only: a record
    /// field changed here without its store write would be lost at the next start.
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
                // The pinned key answered: an earlier address's other key is not it.
                entry.identityAlert = nil
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
