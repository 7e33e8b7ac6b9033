import Foundation
import GRDB
import LanChatCore

/// The kinds of event kept in the durable event log (PRODUCT.md §4). The raw values are the
/// control API's names; `code` is what the `events` table stores (and the schema's triggers
/// write), so a row stays small. `peer.typing` is never logged, so it is not here.
public enum StoredEventType: String, Sendable, Equatable, CaseIterable {
    case messageReceived = "message.received"
    case messageStatus = "message.status"
    case peerPresence = "peer.presence"
    case peerNew = "peer.new"
    case peerKeyMismatch = "peer.keyMismatch"
    case conversationRead = "conversation.read"
    case groupChanged = "group.changed"
    case requestNew = "request.new"

    /// Stored codes never change meaning: `Schema.v3`'s triggers write 1 and 2.
    public var code: Int64 {
        switch self {
        case .messageReceived: 1
        case .messageStatus: 2
        case .peerPresence: 3
        case .peerNew: 5
        case .peerKeyMismatch: 6
        case .conversationRead: 7
        case .groupChanged: 8
        case .requestNew: 9
        }
    }

    public init?(code: Int64) {
        guard let type = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = type
    }
}

/// One row of the event log, with the message it concerns joined at read time.
public struct StoredEvent: Sendable, Equatable {
    /// Increasing, never reused; `watch --since` takes it.
    public var cursor: Int64
    public var type: StoredEventType
    /// Milliseconds since the Unix epoch.
    public var at: Int64
    /// The peer concerned (every event type has one today).
    public var peer: PeerKey?
    /// `message.*`: the message as it is **now** (nil if it was deleted since); its
    /// `status` may have moved on: `status` below is what this event reported.
    public var message: StoredMessage?
    /// `message.status`: the status the event reports (queued, delivered, read, failed).
    public var status: StoredStatus?
    /// `peer.presence`: what the peer's presence became, as it was then; nil for an event
    /// logged before this was kept.
    public var presence: LoggedPresence?
    /// The group concerned: `group.changed`'s (schema v7), or a group message's.
    public var group: GroupID?

    public init(
        cursor: Int64, type: StoredEventType, at: Int64, peer: PeerKey? = nil,
        message: StoredMessage? = nil, status: StoredStatus? = nil,
        presence: LoggedPresence? = nil, group: GroupID? = nil
    ) {
        self.presence = presence
        self.group = group
        self.cursor = cursor
        self.type = type
        self.at = at
        self.peer = peer
        self.message = message
        self.status = status
    }
}

/// What `archive` or `unarchive` left: the conversation as it is now, and whether this call
/// changed it (false: it was archived, or not, already), so the answer can say which.
public struct ArchiveChange<Conversation: Sendable>: Sendable {
    public let conversation: Conversation
    public let changed: Bool
}

/// One conversation of the inbox: a peer we exchanged at least one message with.
public struct StoredConversation: Sendable, Equatable {
    public var peer: PeerKey
    /// Nil only if the last message was deleted.
    public var lastMessage: StoredMessage?
    /// Incoming messages not yet read by the local user.
    public var unread: Int
    /// Hidden from the inbox until a new message arrives.
    public var archived: Bool
    /// The last message's time (local arrival for an incoming one).
    public var updatedAt: Int64?

    public init(
        peer: PeerKey, lastMessage: StoredMessage?, unread: Int, archived: Bool, updatedAt: Int64?
    ) {
        self.peer = peer
        self.lastMessage = lastMessage
        self.unread = unread
        self.archived = archived
        self.updatedAt = updatedAt
    }
}

/// Which of a conversation's unread messages a marking takes: those from `from` through
/// `through` (message ids of the conversation), in arrival order, both included; an absent
/// end is open. An id not in the conversation is `notFound`.
public struct ReadSpan: Sendable, Equatable {
    public var from: MessageID?
    public var through: MessageID?

    public init(from: MessageID? = nil, through: MessageID? = nil) {
        self.from = from
        self.through = through
    }

    /// Every unread message.
    public static let all = ReadSpan()

    /// The SQL condition on `rowid` with its arguments, each id placed by `place` (its
    /// rowid: the first of its rows for `from`, the last for `through`, `last` says which).
    func condition(place: (MessageID, _ last: Bool) throws -> Int64) throws -> (
        sql: String, arguments: StatementArguments
    ) {
        var sql = ""
        var arguments: StatementArguments = []
        if let from {
            sql += " AND rowid >= ?"
            arguments += [try place(from, false)]
        }
        if let through {
            sql += " AND rowid <= ?"
            arguments += [try place(through, true)]
        }
        return (sql, arguments)
    }
}

/// What `markRead` changed: the messages now read, and the read receipts to send.
public struct ReadMarking: Sendable, Equatable {
    /// A peer's incoming cursor whose `read` moved: the daemon sends READ(stream, readUpTo)
    /// (PROTOCOL.md §9.5), or carries it in the next HELLO.
    public struct Receipt: Sendable, Equatable {
        public var peer: PeerKey
        public var stream: UInt64
        public var readUpTo: UInt64

        public init(peer: PeerKey, stream: UInt64, readUpTo: UInt64) {
            self.peer = peer
            self.stream = stream
            self.readUpTo = readUpTo
        }
    }

    /// The messages that were unread, with `readAt` set: by conversation (the one with the
    /// oldest unread message first), then in arrival order.
    public var messages: [StoredMessage]
    public var receipts: [Receipt]
    /// More messages are unread than one marking takes (`PageBudget`): read again.
    public var more: Bool

    public init(messages: [StoredMessage], receipts: [Receipt], more: Bool = false) {
        self.messages = messages
        self.receipts = receipts
        self.more = more
    }
}

/// What a `peer.presence` event logged: offline, discovering (a record but no session), or
/// online with the availability the peer announced then (nil: not known).
public enum LoggedPresence: Equatable, Sendable {
    case offline
    case discovering
    case online(availability: String?)

    /// Its code in `events.status`: 0 offline, 1 online, 2 … 4 online and available, away or
    /// busy, 5 discovering.
    static let availabilities = ["available", "away", "busy"]

    var code: Int64 {
        switch self {
        case .offline: 0
        case .discovering: 5
        case .online(let availability):
            availability.flatMap { Self.availabilities.firstIndex(of: $0) }.map { Int64($0) + 2 }
                ?? 1
        }
    }

    init?(code: Int64) {
        switch code {
        case 0: self = .offline
        case 1: self = .online(availability: nil)
        case 2...4: self = .online(availability: Self.availabilities[Int(code) - 2])
        case 5: self = .discovering
        default: return nil
        }
    }
}
