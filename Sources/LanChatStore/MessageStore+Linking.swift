import Foundation
import GRDB
import LanChatCore

/// "Verify and link" (PROTOCOL.md §3.8 rows 7 and 8): a contact reinstalled, so its name
/// came back with a new key. Once the user confirms the new key is the same person, the
/// earlier key's conversation and standing move to it, and what was held for the earlier key
/// goes out to the new one.
extension MessageStore {
    /// Moves `earlier`'s 1:1 conversation and standing to `key`, in one transaction:
    /// - every 1:1 message, sent and received, is filed under `key`. Those still queued get
    ///   `key`'s stream, with seqs after its own, in their order; the caller hands them to
    ///   `key`'s link. Delivered ones keep the stream and seq they were acknowledged on.
    /// - `earlier`'s stream starts afresh (what it still queues, group copies, moves to the
    ///   new stream), so a seq of it that now belongs to `key` is never looked for again.
    /// - the inbox has one conversation, `key`'s; archived only if both were.
    /// - `key` gets `alias` (the caller's choice: the name the user knew the earlier key by),
    ///   is a contact when either key was one (else a pending request of either stays one,
    ///   from the earlier of the two: a link accepts nothing, found by QA), and is `verified`
    ///   when `verified` or when it already was, else `unverified`. The key-change warning is
    ///   settled.
    /// - `earlier` keeps its key, its group memberships and their messages, loses its alias,
    ///   contact status and verification, and is retired: `replaced_by` names `key`, and it
    ///   is not linked again (`notFound`).
    /// Group messages stay where they are: a group's members are keys, and `key` is not one
    /// until a member adds it. The group copies still queued for `earlier` fail with
    /// `LinkedConversation.replacedReason`: a retired key is never sent to again, and a copy
    /// left queued would count in `status` and hold a group's `send --wait` for ever.
    public func linkKey(
        _ key: PeerKey, replacing earlier: PeerKey, verified: Bool, alias: String?,
        newStreamID: @escaping @Sendable () -> UInt64 = randomStreamID
    ) async throws(StoreError) -> LinkedConversation {
        try await write("linking a new key to an earlier one") { db in
            guard key != earlier else { throw StoreError(.notFound, "a key cannot replace itself") }
            guard
                let previous = try Row.fetchOne(
                    db, sql: "SELECT replaced_by, contact, request_since FROM peers WHERE pk = ?",
                    arguments: [earlier.blob]),
                try !Self.isUnknownPeer(db, key)
            else { throw StoreError(.notFound, "unknown peer") }
            guard previous["replaced_by"] as Data? == nil else {
                throw StoreError(.notFound, "that key was replaced already")
            }
            let queued = try Self.moveQueued(
                db, from: earlier, to: key, newStream: newStreamID)
            try db.execute(
                sql: "UPDATE messages SET pk = ? WHERE pk = ? AND group_id IS NULL",
                arguments: [key.blob, earlier.blob])
            let moved = db.changesCount + queued.count
            try db.execute(
                sql: """
                    UPDATE messages SET status = 4, fail_reason = ?
                    WHERE pk = ? AND direction = 1 AND status = 0 AND group_id IS NOT NULL
                    """,
                arguments: [LinkedConversation.replacedReason, earlier.blob])
            let failedGroupCopies = db.changesCount
            if try Self.outgoingStream(db, peer: earlier) != nil {
                try Self.restartStream(db, to: earlier, stream: newStreamID())
            }
            try Self.mergeConversation(db, from: earlier, into: key)
            try db.execute(
                sql: """
                    UPDATE peers SET alias = NULL, contact = 0, request_since = NULL,
                        verified_fp = NULL, key_changed_from = NULL, replaced_by = ?,
                        trust = CASE trust WHEN 'blocked' THEN 'blocked' ELSE 'unverified' END
                    WHERE pk = ?
                    """,
                arguments: [key.blob, earlier.blob])
            let earlierContact: Bool = previous["contact"]
            let earlierRequest: Int64? = previous["request_since"]
            try db.execute(
                sql: """
                    UPDATE peers SET alias = ?, contact = contact OR ?,
                        request_since = CASE WHEN contact OR ? THEN NULL
                            ELSE min(coalesce(request_since, ?), coalesce(?, request_since)) END,
                        trust = CASE WHEN ? OR trust = 'verified' THEN 'verified'
                            ELSE 'unverified' END,
                        verified_fp = CASE WHEN ? OR trust = 'verified' THEN pk END,
                        key_change_settled = ?, key_changed_from = NULL
                    WHERE pk = ?
                    """,
                arguments: [
                    alias, earlierContact, earlierContact, earlierRequest, earlierRequest,
                    verified, verified, earlier.blob, key.blob,
                ])
            return LinkedConversation(
                moved: moved, queued: queued, failedGroupCopies: failedGroupCopies)
        }
    }

    /// `earlier`'s queued 1:1 messages, renumbered onto the end of `key`'s stream (started
    /// if it has none) in their order, and filed under `key`.
    private static func moveQueued(
        _ db: Database, from earlier: PeerKey, to key: PeerKey, newStream: () -> UInt64
    ) throws -> [StoredMessage] {
        let rows = try queuedRows(db, of: earlier, oneToOneOnly: true)
        guard !rows.isEmpty else { return [] }
        let current = try outgoingStream(db, peer: key)
        return try requeue(
            db, rows, to: key, stream: current?.0 ?? newStream(), from: current?.1 ?? 1)
    }

    /// Gives `peer` a fresh stream; what is queued for it moves there, in its order.
    static func restartStream(_ db: Database, to peer: PeerKey, stream: UInt64) throws {
        _ = try requeue(db, try queuedRows(db, of: peer), to: peer, stream: stream, from: 1)
    }

    /// The store went back in time (`HistoryCheck`: a restored backup): peers have seen seqs
    /// of ours it no longer holds, and would take a new message at one of them for a
    /// duplicate, or mark a queued one delivered from their cursor without ever receiving it.
    /// Every outgoing stream restarts, its queued messages first, in one transaction; a peer
    /// adopts the new stream and drops by id what it already has (PROTOCOL.md §9.4).
    /// Returns how many streams restarted.
    @discardableResult
    static func restartEveryStream(
        _ pool: DatabasePool, path: String,
        newStreamID: @escaping @Sendable () -> UInt64 = randomStreamID
    ) throws(StoreError) -> Int {
        do {
            return try pool.write { db in try restartEveryStream(db, newStreamID: newStreamID) }
        } catch {
            throw StoreError.wrapping(error, while: "restarting the outgoing streams of \(path)")
        }
    }

    /// `restartEveryStream` inside a transaction of the caller's (`StoreRepair` after a loss):
    /// every peer with a stream, or with messages queued (a repair can lose a stream's row
    /// and keep its messages).
    @discardableResult
    static func restartEveryStream(
        _ db: Database, newStreamID: () -> UInt64 = randomStreamID
    ) throws -> Int {
        let peers = try Data.fetchAll(
            db,
            sql: """
                SELECT pk FROM out_streams
                UNION SELECT pk FROM messages WHERE direction = 1 AND status = 0
                """)
        for bytes in peers {
            guard let peer = PeerKey(bytes: bytes) else {
                throw StoreError(.corrupt, "an outgoing stream has an invalid peer key")
            }
            try restartStream(db, to: peer, stream: newStreamID())
        }
        return peers.count
    }

    /// The rows of `peer`'s queued messages, in their order.
    private static func queuedRows(_ db: Database, of peer: PeerKey, oneToOneOnly: Bool = false)
        throws -> [Int64]
    {
        try Int64.fetchAll(
            db,
            sql: """
                SELECT rowid FROM messages WHERE pk = ? AND direction = 1 AND status = 0
                \(oneToOneOnly ? "AND group_id IS NULL" : "")
                ORDER BY seq, rowid
                """,
            arguments: [peer.blob])
    }

    /// Files `rows` under `peer` on `stream` with consecutive seqs from `first`, and records
    /// the stream's next seq after them. Returns the messages as they are now.
    private static func requeue(
        _ db: Database, _ rows: [Int64], to peer: PeerKey, stream: UInt64, from first: UInt64
    ) throws -> [StoredMessage] {
        var nextSeq = first
        var requeued: [StoredMessage] = []
        for rowID in rows {
            requeued += try StoredMessage.fetchAll(
                db,
                sql: """
                    UPDATE messages SET pk = ?, stream = ?, seq = ? WHERE rowid = ?
                    RETURNING \(StoredMessage.columnsWithGroup)
                    """,
                arguments: [peer.blob, stream.storedValue, nextSeq.storedValue, rowID])
            nextSeq += 1
        }
        try saveOutgoingStream(db, peer: peer, stream: stream, nextSeq: nextSeq)
        return requeued
    }

    /// After `earlier`'s 1:1 messages became `key`'s: one conversation row, `key`'s, with the
    /// latest message, the unread count of both, archived only if both were archived.
    private static func mergeConversation(
        _ db: Database, from earlier: PeerKey, into key: PeerKey
    ) throws {
        let archived = try Bool.fetchOne(
            db,
            sql: """
                SELECT min(archived) FROM conversations WHERE pk IN (?, ?)
                """,
            arguments: [earlier.blob, key.blob])
        try db.execute(sql: "DELETE FROM conversations WHERE pk = ?", arguments: [earlier.blob])
        guard
            let last = try Int64.fetchOne(
                db, sql: "SELECT max(rowid) FROM messages WHERE pk = ? AND group_id IS NULL",
                arguments: [key.blob])
        else { return }
        try db.execute(
            sql: """
                INSERT INTO conversations (pk, last_message, updated_at, archived, unread)
                SELECT pk, rowid,
                    CASE direction WHEN 0 THEN coalesce(received_at, created_at)
                        ELSE created_at END,
                    ?,
                    (SELECT count(*) FROM messages u
                        WHERE u.pk = m.pk AND u.direction = 0 AND u.read_at IS NULL
                            AND u.group_id IS NULL)
                FROM messages m WHERE rowid = ?
                ON CONFLICT (pk) DO UPDATE SET last_message = excluded.last_message,
                    updated_at = excluded.updated_at, archived = excluded.archived,
                    unread = excluded.unread
                """,
            arguments: [archived ?? false, last])
    }
}

/// What `link` moved.
public struct LinkedConversation: Sendable, Equatable {
    /// The 1:1 messages now filed under the new key, queued ones included.
    public var moved: Int
    /// The queued ones, in their new stream order: the new key's link sends them.
    public var queued: [StoredMessage]
    /// The earlier key's group copies that were still queued, now failed.
    public var failedGroupCopies: Int

    /// Why a group copy for a retired key fails (here, and for every group message sent
    /// to a group that still lists it).
    public static let replacedReason =
        "this member's key was replaced by a newer one (verify --link); remove it from the group"

    public init(moved: Int, queued: [StoredMessage], failedGroupCopies: Int = 0) {
        self.moved = moved
        self.queued = queued
        self.failedGroupCopies = failedGroupCopies
    }
}
