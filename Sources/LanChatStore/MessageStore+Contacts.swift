import Foundation
import GRDB
import LanChatCore

/// Contacts, trust and message requests (PRODUCT.md §4 and §6, schema v4). Each change is one
/// transaction with the event it causes; `PeerDirectory` calls these before it changes its
/// in-memory entry, so the two never drift. Every method throws `notFound` for an unknown key.
extension MessageStore {
    /// Sets (or, with nil, clears) the local alias.
    public func setAlias(_ key: PeerKey, _ alias: String?) async throws(StoreError) {
        try await updatePeer("setting an alias", key, "alias = ?", [alias])
    }

    /// Makes the peer a contact (`add`, `accept`, or a first message to it); a pending request
    /// from it is accepted with it: its messages join the inbox, unread.
    public func makeContact(_ key: PeerKey) async throws(StoreError) {
        try await updatePeer("making a contact", key, "contact = 1, request_since = NULL", [])
    }

    /// The safety number matched: `verified` for this key, and a key-change warning about it
    /// is settled.
    public func markVerified(_ key: PeerKey) async throws(StoreError) {
        try await updatePeer(
            "marking a peer verified", key,
            "trust = 'verified', verified_fp = pk, " + Self.settleKeyChange, [])
    }

    /// Blocks the key. A pending request from it is dropped with its messages (they were never
    /// shown in the inbox); a key-change warning about it is settled. Only the request's own
    /// messages go: a peer `remove`d and then writing again keeps the conversation it had.
    public func block(_ key: PeerKey) async throws(StoreError) {
        try await write("blocking a peer") { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT request_since FROM peers WHERE pk = ?", arguments: [key.blob])
            else { throw StoreError(.notFound, "unknown peer") }
            if let since = row[0] as Int64? {
                try db.execute(
                    sql:
                        "DELETE FROM messages WHERE pk = ? AND direction = 0 AND \(Self.inRequest)",
                    arguments: [key.blob, since])
                try Self.dropEmptyConversation(db, key)
            }
            try db.execute(
                sql: """
                    UPDATE peers SET trust = 'blocked', verified_fp = NULL, request_since = NULL,
                        \(Self.settleKeyChange)
                    WHERE pk = ?
                    """,
                arguments: [key.blob])
        }
    }

    /// Unblocks the key: unverified, as on first contact.
    public func unblock(_ key: PeerKey) async throws(StoreError) {
        try await updatePeer(
            "unblocking a peer", key, "trust = 'unverified'", [], condition: "trust = 'blocked'")
    }

    /// `remove`: forgets alias, verification, contact status, a pending request and a
    /// key-change warning (a block stays). With `purge`, also deletes the 1:1 conversation
    /// (not the peer's part of group conversations): every message but those still queued, which keep their place in our stream and still
    /// go out (the peer would otherwise wait for their seqs forever).
    ///
    /// `purge` also scrubs the deleted text from the files: `secure_delete` zeroes what the
    /// delete frees, the search indexes (the CJK one too) are merged so their old segments
    /// (which still hold the words) are freed and zeroed too, and a TRUNCATE checkpoint leaves no earlier page in
    /// the WAL. It holds the writer for as long as the merge takes (the whole index).
    ///
    /// Returns how many messages the purge kept because they are still on their way (0
    /// without `purge`), so `remove --purge` can say so in the same answer.
    @discardableResult
    public func forget(_ key: PeerKey, purge: Bool) async throws(StoreError) -> Int {
        let kept = try await write("removing a peer") { db -> Int in
            try db.execute(
                sql: """
                    UPDATE peers SET alias = NULL, contact = 0, request_since = NULL,
                        \(Self.settleKeyChange), verified_fp = NULL,
                        trust = CASE trust WHEN 'blocked' THEN 'blocked' ELSE 'unverified' END
                    WHERE pk = ?
                    """,
                arguments: [key.blob])
            guard db.changesCount == 1 else { throw StoreError(.notFound, "unknown peer") }
            guard purge else { return 0 }
            try db.execute(sql: "PRAGMA secure_delete = ON")
            defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
            // The 1:1 conversation only: the peer's messages in groups and its copies of
            // ours are the groups' conversations (found by QA: purging bob emptied them).
            try db.execute(
                sql: """
                    DELETE FROM messages
                    WHERE pk = ? AND group_id IS NULL AND NOT (direction = 1 AND status = 0)
                    """,
                arguments: [key.blob])
            try Self.dropEmptyConversation(db, key)
            try db.execute(sql: "INSERT INTO messages_fts (messages_fts) VALUES ('optimize')")
            if try Self.hasCJKIndex(db) {
                try db.execute(
                    sql: "INSERT INTO messages_fts_cjk (messages_fts_cjk) VALUES ('optimize')")
            }
            return try Int.fetchOne(
                db, sql: "SELECT count(*) FROM messages WHERE pk = ? AND group_id IS NULL",
                arguments: [key.blob]) ?? 0
        }
        guard purge else { return kept }
        // Best effort: the purge is committed, so an error here must not say it failed; a
        // WAL a reader keeps busy loses its old pages at the next checkpoint instead.
        // GRDB's asynchronous overload (the closure returns nothing that is not Sendable):
        // the checkpoint may take a while and must not hold a concurrency thread meanwhile.
        try? await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return kept
    }

    /// A message from a non-contact arrived under `--accept contacts`: opens its request at
    /// `now` and logs `request.new`, unless it is a contact or a request is already pending.
    /// Returns whether it opened one.
    @discardableResult
    public func openRequest(_ key: PeerKey, at now: Int64) async throws(StoreError) -> Bool {
        try await write("opening a message request") { db in
            try db.execute(
                sql: """
                    UPDATE peers SET request_since = ?
                    WHERE pk = ? AND contact = 0 AND request_since IS NULL
                    """,
                arguments: [now, key.blob])
            guard db.changesCount == 1 else { return false }
            try Self.logEvent(db, .requestNew, peer: key, at: now)
            return true
        }
    }

    /// `key` appeared using the name of the earlier key `previous` (PROTOCOL.md §3.8 row 7):
    /// recorded on the new key with a `peer.keyMismatch` event, once; not again once the user
    /// settled that very change (schema v10), whatever restarts came between.
    @discardableResult
    public func recordKeyChange(_ key: PeerKey, from previous: PeerKey, at now: Int64)
        async throws(StoreError) -> Bool
    {
        try await write("recording a key change") { db in
            try Self.noteKeyChange(db, key, from: previous, at: now)
        }
    }

    /// A key that answered where `previous` was expected (a static `--peer ID@HOST:PORT`),
    /// pinned on this first contact with its key-change warning, in one transaction (found
    /// in review: a daemon ended between the pin and the warning kept the key pinned with
    /// none, and a pinned key is never warned of again). Unnamed until its HELLO, which
    /// announces it (`recordPeerSeen`). Returns whether the warning was recorded.
    public func pinPresentedKey(
        _ key: PeerKey, keyTag: String, insteadOf previous: PeerKey, endpoint: Endpoint?,
        at now: Int64
    ) async throws(StoreError) -> Bool {
        try await write("recording a new key") { db in
            try db.execute(
                sql: """
                    INSERT INTO peers (pk, id, key_tag, name, first_seen, last_seen)
                    VALUES (?, ?, ?, '', ?, ?) ON CONFLICT (pk) DO NOTHING
                    """,
                arguments: [key.blob, key.id, keyTag, now, now])
            if let endpoint {
                try Self.upsertAddress(db, key: key, endpoint: endpoint, at: now)
            }
            return try Self.noteKeyChange(db, key, from: previous, at: now)
        }
    }

    private static func noteKeyChange(
        _ db: Database, _ key: PeerKey, from previous: PeerKey, at now: Int64
    ) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE peers SET key_changed_from = ?
                WHERE pk = ? AND key_changed_from IS NULL
                    AND key_change_settled IS NOT ?
                """,
            arguments: [previous.blob, key.blob, previous.blob])
        guard db.changesCount == 1 else { return false }
        try logEvent(db, .peerKeyMismatch, peer: key, at: now)
        return true
    }

    /// The pending message requests, oldest first, each with the count and the first of the
    /// 1:1 messages that came since it opened (not earlier ones, from before a `remove`; not
    /// group messages, which wait in their group's request).
    public func requests() async throws(StoreError) -> [StoredRequest] {
        try await read("reading message requests") { db in
            try ColumnReader.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT p.pk, p.request_since,
                            (SELECT count(*) FROM messages c
                                WHERE c.pk = p.pk AND c.direction = 0 AND c.group_id IS NULL
                                    AND c.received_at >= p.request_since),
                            \(StoredMessage.columns(of: "m"))
                        FROM peers p LEFT JOIN messages m ON m.rowid = (
                            SELECT min(rowid) FROM messages f
                            WHERE f.pk = p.pk AND f.direction = 0 AND f.group_id IS NULL
                                AND f.received_at >= p.request_since)
                        WHERE p.request_since IS NOT NULL
                        ORDER BY p.request_since, p.pk
                        """),
                arguments: []
            ) { row throws -> StoredRequest? in
                guard let key = PeerKey(bytes: row.bytes(0)) else { return nil }
                return StoredRequest(
                    peer: key, since: row.int64(1), count: Int(row.int64(2)),
                    firstMessage: row.isNull(3) ? nil : try StoredMessage(columns: row, from: 3))
            }.compactMap { $0 }
        }
    }

    private func updatePeer(
        _ action: String, _ key: PeerKey, _ assignments: String,
        _ values: [(any DatabaseValueConvertible)?],
        condition: String? = nil
    ) async throws(StoreError) {
        let sql =
            "UPDATE peers SET \(assignments) WHERE pk = ?"
            + (condition.map { " AND \($0)" } ?? "")
        let arguments = StatementArguments(values + [key.blob])
        try await write(action) { db in
            guard try !Self.isUnknownPeer(db, key) else {
                throw StoreError(.notFound, "unknown peer")
            }
            try db.execute(sql: sql, arguments: arguments)
        }
    }

    /// Settles a pending key-change warning: cleared, and remembered as settled
    /// (`recordKeyChange`). Assignments for `UPDATE peers SET`.
    static let settleKeyChange = """
        key_change_settled = coalesce(key_changed_from, key_change_settled),
        key_changed_from = NULL
        """

    /// The inbox keeps no row for a peer with no message left.
    static func dropEmptyConversation(_ db: Database, _ key: PeerKey) throws {
        // The 1:1 conversation's last: a group row of the peer's is its group's (found by QA:
        // after a purge, the inbox showed a group message as the conversation with the peer).
        let last = try Int64.fetchOne(
            db, sql: "SELECT max(rowid) FROM messages WHERE pk = ? AND group_id IS NULL",
            arguments: [key.blob])
        if let last {
            let at = try Int64.fetchOne(
                db,
                sql: """
                    SELECT CASE direction WHEN 0 THEN coalesce(received_at, created_at)
                        ELSE created_at END FROM messages WHERE rowid = ?
                    """, arguments: [last])
            try db.execute(
                sql: "UPDATE conversations SET last_message = ?, updated_at = ? WHERE pk = ?",
                arguments: [last, at, key.blob])
        } else {
            try db.execute(sql: "DELETE FROM conversations WHERE pk = ?", arguments: [key.blob])
        }
    }

    /// Which of a peer's received messages belong to its pending request (bound: its
    /// `request_since`): those received since it opened. A request opens before the message
    /// that causes it is stored, with the same clock reading.
    static let inRequest = "received_at >= ?"

    /// A peer's conversation is a request while `request_since` is set: the inbox shows it
    /// only as it stood before (`conversationBeforeRequestSelect`), the counts take its
    /// `unread` column out.
    static let notARequest =
        "pk NOT IN (SELECT pk FROM peers WHERE request_since IS NOT NULL)"

    /// A row of `messages` (unaliased) that no pending request holds: a request holds only
    /// what its peer sent since it opened; what came before (a peer `remove`d, then writing
    /// again under `--accept contacts`) stays the conversation's (found by QA: all of it
    /// left the inbox and could not be read).
    static let notInARequest = """
        NOT EXISTS (SELECT 1 FROM peers p WHERE p.pk = messages.pk
            AND p.request_since IS NOT NULL AND messages.received_at >= p.request_since)
        """

    /// A message of a pending group request (schema v7) is the group's, held as its sender's
    /// are: never read until the group is accepted.
    static let notAGroupRequest =
        "(group_id IS NULL OR group_id NOT IN (SELECT gid FROM groups WHERE request_since IS NOT NULL))"
}

/// A pending message request (`contacts`).
public struct StoredRequest: Sendable, Equatable {
    public var peer: PeerKey
    /// When it was opened (its first message arrived).
    public var since: Int64
    /// Messages received from the peer.
    public var count: Int
    public var firstMessage: StoredMessage?
}
