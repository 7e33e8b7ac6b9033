import Foundation
import GRDB
import LanChatCore

/// One group conversation of the inbox (schema v7's `group_conversations`, kept by its
/// triggers): the group's last message, unread count and archive flag.
public struct StoredGroupConversation: Sendable, Equatable {
    public var group: GroupID
    /// Every copy of the last message: one row for an incoming message, one per member for an
    /// own one (the daemon folds them into one message with its recipients). Empty only if
    /// the last message was deleted.
    public var lastMessage: [StoredMessage]
    public var unread: Int
    public var archived: Bool
    public var updatedAt: Int64?

    public init(
        group: GroupID, lastMessage: [StoredMessage], unread: Int, archived: Bool,
        updatedAt: Int64?
    ) {
        self.group = group
        self.lastMessage = lastMessage
        self.unread = unread
        self.archived = archived
        self.updatedAt = updatedAt
    }
}

/// The inbox's group conversations, `archive GROUP`, and group message requests
/// (`--accept contacts`: a group a non-contact added us to waits for `accept GROUP`).
extension MessageStore {
    /// The group conversations that are (or are not) archived, of groups that are not
    /// pending requests, in no particular order (the daemon merges them with the 1:1 ones).
    public func groupConversations(archived: Bool) async throws(StoreError)
        -> [StoredGroupConversation]
    {
        try await read("reading the inbox's groups") { db in
            let rows = try ColumnReader.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT c.gid, c.archived, c.updated_at, c.unread, m.uuid
                        FROM group_conversations c JOIN groups g ON g.gid = c.gid
                        LEFT JOIN messages m ON m.rowid = c.last_message
                        WHERE c.archived = ? AND g.request_since IS NULL
                        """),
                arguments: [archived], Self.groupConversationHead)
            return try rows.map { head throws in try Self.groupConversation(db, head) }
        }
    }

    /// The conversation of `group`; nil when no message was exchanged in it yet.
    public func groupConversation(_ group: GroupID) async throws(StoreError)
        -> StoredGroupConversation?
    {
        try await read("reading a group conversation") { db in
            try Self.groupConversation(db, group)
        }
    }

    /// `archive GROUP` / `unarchive GROUP`; nil when the group has no conversation yet.
    public func setGroupArchived(_ group: GroupID, _ archived: Bool) async throws(StoreError)
        -> ArchiveChange<StoredGroupConversation>?
    {
        try await write("archiving a group conversation") { db in
            try db.execute(
                sql: """
                    UPDATE group_conversations SET archived = ? WHERE gid = ? AND archived IS NOT ?
                    """,
                arguments: [archived, group.blob, archived])
            let changed = db.changesCount == 1
            return try Self.groupConversation(db, group).map {
                ArchiveChange(conversation: $0, changed: changed)
            }
        }
    }

    /// `accept GROUP`: the group is no longer a request; its conversation joins the inbox.
    /// False when it was not one.
    public func acceptGroupRequest(_ group: GroupID) async throws(StoreError) -> Bool {
        let observer = eventObserver
        return try await write("accepting a group request") { db in
            observer.groupsWritten()
            try db.execute(
                sql: """
                    UPDATE groups SET request_since = NULL, request_from = NULL
                    WHERE gid = ? AND request_since IS NOT NULL
                    """,
                arguments: [group.blob])
            return db.changesCount == 1
        }
    }

    private struct GroupConversationHead {
        var group: GroupID
        var archived: Bool
        var updatedAt: Int64?
        var unread: Int
        var lastID: Data?
    }

    private static func groupConversationHead(_ row: ColumnReader) throws
        -> GroupConversationHead
    {
        guard let group = GroupID(bytes: Data(row.bytes(0))) else {
            throw StoreError(.corrupt, "a group conversation row has an invalid group id")
        }
        return GroupConversationHead(
            group: group, archived: row.bool(1), updatedAt: row.optionalInt64(2),
            unread: Int(row.int64(3)), lastID: row.isNull(4) ? nil : Data(row.bytes(4)))
    }

    private static func groupConversation(_ db: Database, _ group: GroupID) throws
        -> StoredGroupConversation?
    {
        try ColumnReader.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT c.gid, c.archived, c.updated_at, c.unread, m.uuid
                    FROM group_conversations c LEFT JOIN messages m ON m.rowid = c.last_message
                    WHERE c.gid = ?
                    """),
            arguments: [group.blob], groupConversationHead
        ).first.map { head throws in try groupConversation(db, head) }
    }

    /// The head's last message with every copy of it (own messages have one per member).
    private static func groupConversation(_ db: Database, _ head: GroupConversationHead) throws
        -> StoredGroupConversation
    {
        var copies: [StoredMessage] = []
        if let lastID = head.lastID {
            copies = try StoredMessage.fetchAll(
                db,
                sql: """
                    SELECT \(StoredMessage.columnsWithGroup) FROM messages
                    WHERE group_id = ? AND uuid = ? ORDER BY rowid
                    """,
                arguments: [head.group.blob, lastID])
        }
        return StoredGroupConversation(
            group: head.group, lastMessage: copies, unread: head.unread,
            archived: head.archived, updatedAt: head.updatedAt)
    }
}
