import Foundation
import GRDB
import LanChatCore

/// Reading (PRODUCT.md §4: `inbox`, `read`, `archive`): the local user's read marks, the
/// incoming cursors' `read` that READ receipts carry (PROTOCOL.md §9.5), and the inbox's
/// conversations (kept by `Schema.v5`'s triggers on `messages`).
extension MessageStore {
    /// Marks the unread incoming messages read at `now`: those of the 1:1 conversation with
    /// `peer`, or, without one, of every conversation, group conversations included (their
    /// messages carry their `group`). In **one transaction** with what follows from it: each
    /// touched peer's incoming cursor `read` rises as far as its current stream is read
    /// without a gap (`raiseReadCursor`: never backwards, never past `delivered`; a group's
    /// messages travel in their sender's stream), and one `conversation.read` event per
    /// touched conversation (a group's with the group and no peer).
    ///
    /// At most `budget` is marked (as `PageBudget.cost` counts it), the oldest unread first;
    /// the marking says whether more is unread, for the next call.
    ///
    /// `raisingReadCursors` false (read receipts off) leaves the cursors, so no receipt ever
    /// reports these reads by itself (found by QA: turned on again, the next HELLO told the
    /// senders of everything read while they were off). READ being cumulative, a read made
    /// later with receipts on still covers them.
    ///
    /// `span` narrows the marking to part of `peer`'s conversation (with no peer it must be
    /// `.all`).
    public func markRead(
        peer: PeerKey?, span: ReadSpan = .all, at now: Int64, budget: Int = PageBudget.maxBytes,
        raisingReadCursors: Bool = true
    ) async throws(StoreError) -> ReadMarking {
        try await write("marking messages read") { db in
            // A pending message request, 1:1 or group, is never marked read (no READ is ever
            // sent for it). A group message is the group's: its sender's 1:1 request does not
            // hold it (found by QA: it stayed unread in the inbox, yet `read` skipped it).
            var unread =
                "direction = 0 AND read_at IS NULL AND "
                + "(group_id IS NOT NULL OR \(Self.notInARequest)) AND " + Self.notAGroupRequest
            var arguments: StatementArguments = []
            if let peer {
                unread += " AND pk = ? AND group_id IS NULL"
                arguments += [peer.blob]
                let bounds = try span.condition { id, _ in try Self.rowID(db, of: id, with: peer) }
                unread += bounds.sql
                arguments += bounds.arguments
            } else if span != .all {
                throw StoreError(.notFound, "a span of messages needs a conversation")
            }
            let (marked, more) = try Self.markOldestRead(
                db, unread: unread, arguments: arguments, at: now, budget: budget)
            // RETURNING has no order: by conversation (oldest unread first), then arrival.
            let byConversation = Dictionary(grouping: marked) { ConversationKey($0) }.mapValues {
                $0.sorted { $0.rowID < $1.rowID }
            }
            let conversations = byConversation.values.sorted { $0[0].rowID < $1[0].rowID }
            // One receipt per peer whose messages were marked (a group's travel in their
            // sender's stream), peers in the order of their first conversation.
            var peers: [PeerKey] = []
            var seen: Set<PeerKey> = []
            for message in conversations.joined() where seen.insert(message.peer).inserted {
                peers.append(message.peer)
            }
            var receipts: [ReadMarking.Receipt] = []
            for peer in peers where raisingReadCursors {
                if let receipt = try Self.raiseReadCursor(db, peer: peer) {
                    receipts.append(receipt)
                }
            }
            for messages in conversations {
                if let group = messages[0].group {
                    try Self.logEvent(db, .conversationRead, group: group, at: now)
                } else {
                    try Self.logEvent(db, .conversationRead, peer: messages[0].peer, at: now)
                }
            }
            return ReadMarking(
                messages: conversations.flatMap { $0 }, receipts: receipts, more: more)
        }
    }

    /// Marks read, at `now`, the oldest messages matching `unread` (a condition on `messages`
    /// with its `arguments`) whose costs up to each stay within `budget` (as
    /// `PageBudget.fitting` counts them; incoming messages have no recipients), and the
    /// oldest in any case; returns them (in no order) and whether any matching message is
    /// left unread.
    static func markOldestRead(
        _ db: Database, unread: String, arguments: StatementArguments, at now: Int64,
        budget: Int
    ) throws -> (marked: [StoredMessage], more: Bool) {
        let perMessage = PageBudget.perMessage
        let marked = try StoredMessage.fetchAll(
            db,
            sql: """
                UPDATE messages SET read_at = ? WHERE rowid IN (
                    SELECT rowid FROM (
                        SELECT rowid,
                            sum(length(CAST(text AS BLOB)) + \(perMessage)) OVER (ORDER BY rowid)
                                AS through,
                            length(CAST(text AS BLOB)) + \(perMessage) AS size
                        FROM messages WHERE \(unread))
                    WHERE through <= ? OR through = size)
                RETURNING \(StoredMessage.columnsWithGroup)
                """,
            arguments: [now] + arguments + [budget])
        let more =
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM messages WHERE \(unread))",
                arguments: arguments) ?? false
        return (marked, more)
    }

    /// The conversation a message belongs to: its group's, else its peer's.
    private enum ConversationKey: Hashable {
        case peer(PeerKey)
        case group(GroupID)

        init(_ message: StoredMessage) {
            self = message.group.map(Self.group) ?? .peer(message.peer)
        }
    }

    /// Raises `peer`'s incoming cursor `read` as far as every message of its current stream is
    /// read: to just before the first one still unread, else to the newest stored (capped at
    /// `delivered`); nil when it does not move. READ is cumulative (PROTOCOL.md §9.5: every
    /// message with `seq ≤ r` is read), and a peer's stream carries its 1:1 messages and its
    /// group copies alike, so reading one conversation must not report the other read (found
    /// by QA: `read GROUP` marked an unread 1:1 message `read` at its sender). A message
    /// staged but not stored yet is above the newest stored, so it is never covered.
    static func raiseReadCursor(_ db: Database, peer: PeerKey) throws -> ReadMarking.Receipt? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT stream, delivered, read FROM in_cursors WHERE pk = ?",
                arguments: [peer.blob])
        else { return nil }
        let stream = UInt64(stored: row[0])
        let delivered = UInt64(stored: row[1])
        let read = UInt64(stored: row[2])
        // Stored in seq order, so the newest row of the stream has its highest seq.
        guard
            let newest = try Int64.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT seq FROM messages WHERE pk = ? AND direction = 0 AND stream = ?
                        ORDER BY rowid DESC LIMIT 1
                        """),
                arguments: [peer.blob, stream.storedValue])
        else { return nil }
        let firstUnread = try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT min(seq) FROM messages INDEXED BY messages_unread
                    WHERE pk = ? AND direction = 0 AND read_at IS NULL AND stream = ?
                    """),
            arguments: [peer.blob, stream.storedValue])
        var raised = min(UInt64(stored: newest), delivered)
        if let firstUnread { raised = min(raised, UInt64(stored: firstUnread) - 1) }
        guard raised > read else { return nil }
        try db.execute(
            sql: "UPDATE in_cursors SET read = ? WHERE pk = ? AND stream = ?",
            arguments: [raised.storedValue, peer.blob, stream.storedValue])
        return ReadMarking.Receipt(peer: peer, stream: stream, readUpTo: raised)
    }

    /// Incoming messages not yet read, from `peer` or from everyone.
    public func unreadCount(peer: PeerKey? = nil) async throws(StoreError) -> Int {
        try await read("counting unread messages") { db in
            guard let peer else {
                return try Int.fetchOne(db, sql: Self.unreadCountAllSQL) ?? 0
            }
            return try Int.fetchOne(
                db, sql: Self.unreadCountSQL + " AND pk = ?", arguments: [peer.blob]) ?? 0
        }
    }

    /// Its WHERE is the partial index `messages_unread`'s, so counting reads only that index;
    /// what a pending message request holds is not unread messages.
    static let unreadCountSQL =
        "SELECT count(*) FROM messages INDEXED BY messages_unread WHERE direction = 0 AND read_at IS NULL AND "
        + notInARequest

    /// The unread messages of conversations with a pending request that came before it: the
    /// conversation's `unread` column counts the request's too.
    static let unreadBeforeRequestsSQL = """
        SELECT coalesce(sum((SELECT count(*) FROM messages u INDEXED BY messages_unread
            WHERE u.direction = 0 AND u.read_at IS NULL AND u.pk = p.pk
                AND u.group_id IS NULL AND u.received_at < p.request_since)), 0)
        FROM peers p INDEXED BY peers_requests WHERE p.request_since IS NOT NULL
        """

    /// Every unread message the inbox shows: the unread counts of the 1:1 conversations that
    /// are no pending request, and of the groups that are none (kept by the v5 and v6
    /// triggers), so `status` and `inbox` always agree. A group message counts in its group
    /// whatever its sender's 1:1 standing; counting rows instead would have to read each
    /// unread row for its group.
    static let unreadCountAllSQL =
        "SELECT (SELECT coalesce(sum(c.unread), 0) FROM conversations c WHERE c."
        + notARequest + ") + (SELECT coalesce(sum(c.unread), 0) "
        + "FROM group_conversations c JOIN groups g ON g.gid = c.gid "
        + "WHERE g.request_since IS NULL) + (\(unreadBeforeRequestsSQL))"

    /// The inbox: conversations that are (or are not) archived, newest activity first.
    ///
    /// Sorted here, not by SQL: SQLite would sort the whole joined rows (the last message's
    /// text included) in a temporary B-tree, most of the query's time, while an index on the
    /// activity would be one more page written by every message's commit.
    public func conversations(archived: Bool) async throws(StoreError) -> [StoredConversation] {
        try await read("reading the inbox") { db in
            let rows =
                try ColumnReader.fetchAll(
                    db.cachedStatement(
                        sql: Self.conversationSelect + """
                             WHERE c.archived = ? AND c.\(Self.notARequest)
                            """),
                    arguments: [archived], Self.conversation)
                + (try Self.hasPendingRequests(db)
                    ? ColumnReader.fetchAll(
                        db.cachedStatement(sql: Self.conversationBeforeRequestSelect),
                        arguments: [archived], Self.conversation)
                    : [])
            // Newest activity first, then the newest last message; ties keep the scan order.
            return rows.sorted(byKey: { ($0.updatedAt ?? .min, $0.lastMessage?.rowID ?? 0) }, by: >)
        }
    }

    /// The conversation with `peer`; nil when no message was ever exchanged with it.
    public func conversation(with peer: PeerKey) async throws(StoreError) -> StoredConversation? {
        try await read("reading a conversation") { db in
            try Self.conversation(db, peer: peer)
        }
    }

    /// Archives (hides from the inbox until a new message arrives) or unarchives the
    /// conversation with `peer`; nil when there is none.
    public func setArchived(peer: PeerKey, _ archived: Bool) async throws(StoreError)
        -> ArchiveChange<StoredConversation>?
    {
        try await write("archiving a conversation") { db in
            try db.execute(
                sql: "UPDATE conversations SET archived = ? WHERE pk = ? AND archived IS NOT ?",
                arguments: [archived, peer.blob, archived])
            let changed = db.changesCount == 1
            return try Self.conversation(db, peer: peer).map {
                ArchiveChange(conversation: $0, changed: changed)
            }
        }
    }

    static func conversation(_ db: Database, peer: PeerKey) throws -> StoredConversation? {
        try ColumnReader.fetchAll(
            db.cachedStatement(sql: conversationSelect + " WHERE c.pk = ?"),
            arguments: [peer.blob], conversation
        ).first
    }

    /// The unread count is the conversation's own column, kept by `Schema.v5`'s triggers.
    static let conversationSelect = """
        SELECT c.pk, c.archived, c.updated_at, c.unread, \(StoredMessage.columns(of: "m"))
        FROM conversations c LEFT JOIN messages m ON m.rowid = c.last_message
        """

    /// Whether any peer's message request is pending: read from the requests' partial index,
    /// so that an inbox without one pays nothing for them (figure 8: the query below, run
    /// every time, cost a third of the inbox of 1 000 conversations).
    static func hasPendingRequests(_ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM peers INDEXED BY peers_requests
                        WHERE request_since IS NOT NULL)
                    """)) ?? false
    }

    /// The conversations with a pending request that had messages before it, as they stood
    /// then: their last message, its time and their unread count from before the request
    /// (`notInARequest`). Outgoing rows all came before: writing to a peer accepts it.
    static let conversationBeforeRequestSelect = """
        SELECT c.pk, c.archived,
            CASE m.direction WHEN 0 THEN coalesce(m.received_at, m.created_at)
                ELSE m.created_at END,
            (SELECT count(*) FROM messages u INDEXED BY messages_unread
                WHERE u.direction = 0 AND u.read_at IS NULL AND u.pk = c.pk
                    AND u.group_id IS NULL AND u.received_at < p.request_since),
            \(StoredMessage.columns(of: "m"))
        FROM peers p JOIN conversations c ON c.pk = p.pk
        JOIN messages m ON m.rowid = (
            SELECT max(l.rowid) FROM messages l WHERE l.pk = p.pk AND l.group_id IS NULL
                AND NOT (l.direction = 0 AND l.received_at >= p.request_since))
        WHERE p.request_since IS NOT NULL AND c.archived = ?
        """

    static func conversation(_ row: ColumnReader) throws -> StoredConversation {
        guard let peer = PeerKey(bytes: row.bytes(0)) else {
            throw StoreError(.corrupt, "a conversation row has an invalid peer key")
        }
        return StoredConversation(
            peer: peer,
            lastMessage: row.isNull(4) ? nil : try StoredMessage(columns: row, from: 4),
            unread: Int(row.int64(3)), archived: row.bool(1), updatedAt: row.optionalInt64(2))
    }
}
