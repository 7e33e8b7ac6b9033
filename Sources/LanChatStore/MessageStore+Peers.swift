import Foundation
import GRDB
import LanChatCore

/// The pin store (PROTOCOL.md §5): one row per peer key ever seen or added, with trust and
/// the addresses where it was reached.
extension MessageStore {
    public func peers() async throws(StoreError) -> [PeerRecord] {
        try await read("loading peers", settling: false) { db in
            var addresses: [PeerKey: [Endpoint]] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT pk, endpoint FROM peer_addresses ORDER BY last_seen DESC")
            {
                let pk: Data = row["pk"]
                guard let key = PeerKey(bytes: pk),
                    let endpoint = Endpoint(parsing: row["endpoint"] as String)
                else { continue }
                addresses[key, default: []].append(endpoint)
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM peers").map { row throws in
                let pk: Data = row["pk"]
                let key = PeerKey(bytes: pk)
                return try PeerRecord(row: row, addresses: key.flatMap { addresses[$0] } ?? [])
            }
        }
    }

    /// Pins a key on first contact (TOFU, PROTOCOL.md §3.8 row 6) or refreshes what the peer
    /// told us about itself. Never changes trust. Returns whether the key was new.
    ///
    /// `peer.new` is logged, in the same transaction, by the first write that knows the peer's
    /// name: a key pinned at its handshake (`name` nil) is announced by its HELLO's write, so
    /// that a watcher is never told of a peer without its name (found by QA: the live event
    /// had an empty one). A peer added by hand (`addPeer`) was announced then.
    @discardableResult
    public func recordPeerSeen(
        _ key: PeerKey, keyTag: String, name: String?, status: String?, statusText: String?,
        endpoint: Endpoint?, at now: Int64
    ) async throws(StoreError) -> Bool {
        try await write("recording a peer") { db in
            let stored = try String.fetchOne(
                db, sql: "SELECT name FROM peers WHERE pk = ?", arguments: [key.blob])
            let isNew = stored == nil
            let announces =
                try name != nil && (isNew || (stored == "" && !Self.wasAnnounced(db, key)))
            try db.execute(
                sql: """
                    INSERT INTO peers (pk, id, key_tag, name, status, status_text, first_seen, last_seen)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (pk) DO UPDATE SET
                        name = coalesce(?, name), status = coalesce(?, status),
                        status_text = coalesce(?, status_text), last_seen = excluded.last_seen
                    """,
                arguments: [
                    key.blob, key.id, keyTag, name ?? "", status ?? "available", statusText ?? "",
                    now, now, name, status, statusText,
                ])
            if announces { try Self.logEvent(db, .peerNew, peer: key, at: now) }
            if let endpoint {
                try Self.upsertAddress(db, key: key, endpoint: endpoint, at: now)
            }
            return isNew
        }
    }

    /// Adds a peer known only by its id (`--peer ID@HOST:PORT`, a group's member) before it
    /// was ever seen. Existing rows keep their name unless `name` is given. A new one is
    /// announced (`peer.new`) only with a name: else its first HELLO's write does it, with the
    /// name (found by QA: a group member never met was announced nameless); `lanchat add`
    /// is `addContact`.
    public func addPeer(_ key: PeerKey, keyTag: String, name: String?, at now: Int64)
        async throws(StoreError)
    {
        try await write("adding a peer") { db in
            let isNew = try Self.isUnknownPeer(db, key)
            try db.execute(
                sql: """
                    INSERT INTO peers (pk, id, key_tag, name, first_seen) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (pk) DO UPDATE SET name = coalesce(?, name)
                    """,
                arguments: [key.blob, key.id, keyTag, name ?? "", now, name])
            if isNew, name != nil { try Self.logEvent(db, .peerNew, peer: key, at: now) }
        }
    }

    /// `add NAME ID` in one transaction: the key pinned ahead of its first contact if it is
    /// new (logging `peer.new`), named `alias`, made a contact, a pending request from it
    /// accepted. A daemon ended half-way through used to keep a pinned key that was neither.
    public func addContact(_ key: PeerKey, keyTag: String, alias: String, at now: Int64)
        async throws(StoreError)
    {
        try await write("adding a contact") { db in
            let isNew = try Self.isUnknownPeer(db, key)
            try db.execute(
                sql: """
                    INSERT INTO peers (pk, id, key_tag, name, first_seen, alias, contact)
                    VALUES (?, ?, ?, '', ?, ?, 1)
                    ON CONFLICT (pk) DO UPDATE SET
                        alias = excluded.alias, contact = 1, request_since = NULL
                    """,
                arguments: [key.blob, key.id, keyTag, now, alias])
            if isNew { try Self.logEvent(db, .peerNew, peer: key, at: now) }
        }
    }

    /// Whether `peer.new` was logged for `key` (and not pruned since). A scan of the log, run
    /// only for a stored peer with no name yet: its first HELLO, or one that gives none.
    static func wasAnnounced(_ db: Database, _ key: PeerKey) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT 1 FROM events WHERE type = ? AND pk = ? LIMIT 1",
            arguments: [StoredEventType.peerNew.code, key.blob]) ?? false
    }

    static func isUnknownPeer(_ db: Database, _ key: PeerKey) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM peers WHERE pk = ?", arguments: [key.blob])
            == nil
    }

    public func recordAddress(_ key: PeerKey, endpoint: Endpoint, at now: Int64)
        async throws(StoreError)
    {
        try await write("recording an address") { db in
            try Self.upsertAddress(db, key: key, endpoint: endpoint, at: now)
        }
    }

    /// Keeps the 8 most recent addresses per peer so a roaming peer cannot grow the table.
    static func upsertAddress(_ db: Database, key: PeerKey, endpoint: Endpoint, at now: Int64)
        throws
    {
        try db.execute(
            sql: """
                INSERT INTO peer_addresses (pk, endpoint, last_seen) VALUES (?, ?, ?)
                ON CONFLICT (pk, endpoint) DO UPDATE SET last_seen = excluded.last_seen
                """,
            arguments: [key.blob, endpoint.description, now])
        try db.execute(
            sql: """
                DELETE FROM peer_addresses WHERE pk = ? AND endpoint NOT IN (
                    SELECT endpoint FROM peer_addresses WHERE pk = ?
                    ORDER BY last_seen DESC LIMIT 8)
                """,
            arguments: [key.blob, key.blob])
    }

    /// Records when a session with `key` was last up. Runs even when the calling task is
    /// being cancelled (a session ending at shutdown); `completion` gets any error.
    public func setLastSeen(
        _ key: PeerKey, at now: Int64,
        completion: @escaping @Sendable (StoreError?) -> Void = { _ in }
    ) {
        pool.asyncWrite(
            { db in
                try db.execute(
                    sql: "UPDATE peers SET last_seen = ? WHERE pk = ?", arguments: [now, key.blob])
            },
            completion: { _, result in
                if case .failure(let error) = result {
                    completion(StoreError.wrapping(error, while: "recording last seen"))
                } else {
                    completion(nil)
                }
            })
    }

    public func setTrust(_ key: PeerKey, _ trust: StoredTrust) async throws(StoreError) {
        try await write("changing trust") { db in
            try db.execute(
                sql: "UPDATE peers SET trust = ? WHERE pk = ?",
                arguments: [trust.rawValue, key.blob])
            guard db.changesCount == 1 else { throw StoreError(.notFound, "unknown peer") }
        }
    }
}
