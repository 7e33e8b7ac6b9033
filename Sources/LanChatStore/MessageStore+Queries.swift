import Foundation
import GRDB
import LanChatCore

/// Read-only views for the control API.
extension MessageStore {
    public struct HistoryPage: Sendable, Equatable {
        /// Oldest first.
        public var messages: [StoredMessage]
        public var hasOlder: Bool
        /// Whether newer messages exist after the last one: only the latest page has none.
        public var hasNewer = false
    }

    public enum PageAnchor: Sendable, Equatable {
        case latest
        case before(MessageID)
        case after(MessageID)
    }

    /// A page of the conversation with `peer`, in local arrival order. An anchor id that is
    /// not in this conversation is `notFound`. Group copies on the peer's stream belong to
    /// their group's conversation (`groupHistory`), not to this one; the query needs schema
    /// v6, which every opened store has (the upgrade tests read old schemas without it).
    public func history(with peer: PeerKey, limit: Int, anchor: PageAnchor = .latest)
        async throws(StoreError) -> HistoryPage
    {
        try await read("reading history") { db in
            let columns = StoredMessage.columns
            switch anchor {
            case .latest, .before:
                var bound = Int64.max
                if case .before(let id) = anchor { bound = try Self.rowID(db, of: id, with: peer) }
                var rows = try StoredMessage.fetchAll(
                    db,
                    sql: """
                        SELECT \(columns) FROM messages
                        WHERE pk = ? AND rowid < ? AND group_id IS NULL
                        ORDER BY rowid DESC LIMIT ?
                        """,
                    arguments: [peer.blob, bound, limit + 1])
                let hasOlder = rows.count > limit
                if hasOlder { rows.removeLast() }
                // A page before an anchor has at least the anchor after it.
                return HistoryPage(
                    messages: rows.reversed(), hasOlder: hasOlder, hasNewer: bound != Int64.max)
            case .after(let id):
                let bound = try Self.rowID(db, of: id, with: peer)
                var rows = try StoredMessage.fetchAll(
                    db,
                    sql: """
                        SELECT \(columns) FROM messages
                        WHERE pk = ? AND rowid > ? AND group_id IS NULL
                        ORDER BY rowid LIMIT ?
                        """,
                    arguments: [peer.blob, bound, limit + 1])
                let hasNewer = rows.count > limit
                if hasNewer { rows.removeLast() }
                // The anchor itself is older.
                return HistoryPage(messages: rows, hasOlder: true, hasNewer: hasNewer)
            }
        }
    }

    static func rowID(_ db: Database, of id: MessageID, with peer: PeerKey) throws -> Int64 {
        guard
            let rowID = try Int64.fetchOne(
                db,
                sql: "SELECT rowid FROM messages WHERE pk = ? AND direction IN (0, 1) AND uuid = ?",
                arguments: [peer.blob, id.blob])
        else { throw StoreError(.notFound, "no message \(id) in this conversation") }
        return rowID
    }

    /// Messages by id (in any conversation), for `send --wait` and `retry ID`.
    public func messages(ids: [MessageID]) async throws(StoreError) -> [StoredMessage] {
        try await read("reading messages") { db in
            try ids.compactMap { id throws in
                try StoredMessage.fetchAll(
                    db,
                    sql: "SELECT \(StoredMessage.columns) FROM messages WHERE uuid = ? LIMIT 1",
                    arguments: [id.blob]
                ).first
            }
        }
    }

    /// Every row with message id `id`: one, or one per member copy of an own group message.
    public func copies(of id: MessageID) async throws(StoreError) -> [StoredMessage] {
        try await read("reading a message") { db in
            try StoredMessage.fetchAll(
                db, sql: "SELECT \(StoredMessage.columnsWithGroup) FROM messages WHERE uuid = ?",
                arguments: [id.blob])
        }
    }

    public struct Counts: Sendable, Equatable {
        public var queued: Int
        public var unread: Int
    }

    /// Outgoing messages of one stream up to a seq that the peer has acknowledged, whether
    /// or not `delivered` is written yet.
    public struct AcknowledgedRange: Sendable {
        public var peer: PeerKey
        public var stream: UInt64
        public var upTo: UInt64

        public init(peer: PeerKey, stream: UInt64, upTo: UInt64) {
            self.peer = peer
            self.stream = stream
            self.upTo = upTo
        }
    }

    /// `queued` leaves out the rows still queued in `acknowledged`, counted in the same
    /// snapshot as the total: a range whose `delivered` was written before the snapshot
    /// counts 0 there, one written after is subtracted, so no message counts twice or not
    /// at all.
    public func counts(acknowledged: [AcknowledgedRange] = []) async throws(StoreError)
        -> Counts
    {
        try await read("counting messages") { db in
            // Messages, not rows: a group message's copies share its uuid and count once
            // while any is queued (found by QA: one message to a group of 256 away was
            // "queued 254"). Copies the link has acknowledged, not stored yet, are not.
            var sql = """
                SELECT count(DISTINCT uuid) FROM messages INDEXED BY messages_queued
                WHERE direction = 1 AND status = 0
                """
            var arguments: StatementArguments = []
            for range in acknowledged {
                sql += " AND NOT (pk = ? AND stream = ? AND seq <= ?)"
                arguments += [range.peer.blob, range.stream.storedValue, range.upTo.storedValue]
            }
            let queued = try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
            return Counts(
                queued: queued, unread: try Int.fetchOne(db, sql: Self.unreadCountAllSQL) ?? 0)
        }
    }

    /// Peers with queued messages: the ones worth dialling even without discovery.
    public func peersWithQueuedMessages() async throws(StoreError) -> [PeerKey] {
        try await read("finding queued messages", settling: false) { db in
            try Data.fetchAll(
                db, sql: "SELECT DISTINCT pk FROM messages WHERE direction = 1 AND status = 0"
            ).compactMap { PeerKey(bytes: $0) }
        }
    }
}
