/// Params, results and the event shape of the reading methods (PRODUCT.md §4–§5): `inbox`,
/// `read`, `archive`/`unarchive`, `search` and `watch`.

public struct InboxParams: Codable, Sendable, Hashable {
    /// Case-insensitive filter on name, alias and the last message's text.
    public var query: String?
    /// Only archived conversations (default: only the others).
    public var archived: Bool?

    public init(query: String? = nil, archived: Bool? = nil) {
        self.query = query
        self.archived = archived
    }
}

public struct InboxResult: Codable, Sendable, Hashable {
    /// By last activity, newest first.
    public var conversations: [ConversationInfo]

    public init(conversations: [ConversationInfo]) {
        self.conversations = conversations
    }
}

public struct ReadParams: Codable, Sendable, Hashable {
    /// A PEER argument; absent: every conversation.
    public var peer: String?
    /// Message ids of `peer`'s conversation (as `history` gives them): only its unread
    /// messages from `from` through `through`, in arrival order, both included, are marked
    /// (either end open when absent). A reader that shows messages marks what it showed
    /// (`lanchat chat`; found by QA: a chat marked the whole conversation read, messages it
    /// had not drawn included).
    public var from: String?
    public var through: String?

    public init(peer: String? = nil, from: String? = nil, through: String? = nil) {
        self.peer = peer
        self.from = from
        self.through = through
    }
}

public struct ReadResult: Codable, Sendable, Hashable {
    /// The messages that were unread and are now read, oldest first (by conversation, then
    /// arrival), with `read` already true.
    public var messages: [MessageInfo]
    /// More is unread than one answer carries (at most `PageBudget.maxBytes`):
    /// call `read` again. False from a daemon that did not send it.
    public var more: Bool

    public init(messages: [MessageInfo], more: Bool = false) {
        self.messages = messages
        self.more = more
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        messages = try container.decode([MessageInfo].self, forKey: .messages)
        more = try container.decodeIfPresent(Bool.self, forKey: .more) ?? false
    }
}

public struct ArchiveParams: Codable, Sendable, Hashable {
    public var peer: String

    public init(peer: String) {
        self.peer = peer
    }
}

public struct ArchiveResult: Codable, Sendable, Hashable {
    public var conversation: ConversationInfo
    /// Whether this call changed the conversation; false when it was archived (for
    /// `archive`) or not archived (for `unarchive`) already. Absent from older daemons.
    public var changed: Bool?

    public init(conversation: ConversationInfo, changed: Bool? = nil) {
        self.conversation = conversation
        self.changed = changed
    }
}

public struct SearchParams: Codable, Sendable, Hashable {
    /// Words (all must match), `prefix*`, and `"a phrase"`; case- and accent-insensitive.
    public var text: String
    /// Only this conversation (a PEER argument).
    public var peer: String?
    /// 1…1000, default 50.
    public var limit: Int?

    public init(text: String, peer: String? = nil, limit: Int? = nil) {
        self.text = text
        self.peer = peer
        self.limit = limit
    }
}

public struct SearchResult: Codable, Sendable, Hashable {
    /// Newest first.
    public var messages: [MessageInfo]
    /// More matched than one answer carries (at most 2 MiB of messages, `PageBudget` in
    /// LanChatCore): these are the newest; a narrower search finds the others. False from a
    /// daemon that did not send it.
    public var more: Bool

    public init(messages: [MessageInfo], more: Bool = false) {
        self.messages = messages
        self.more = more
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        messages = try container.decode([MessageInfo].self, forKey: .messages)
        more = try container.decodeIfPresent(Bool.self, forKey: .more) ?? false
    }
}

public struct WatchParams: Codable, Sendable, Hashable {
    /// Only events about this peer (a PEER argument).
    public var peer: String?
    /// Replay every logged event after this cursor first, then go live.
    public var since: String?

    public init(peer: String? = nil, since: String? = nil) {
        self.peer = peer
        self.since = since
    }
}

/// The first answer to `watch`, before the `event` notifications: where the stream starts.
public struct WatchResult: Codable, Sendable, Hashable {
    /// The newest logged event when the watch began: events after it are live ones (with
    /// `since`, the replay covers everything up to it).
    public var cursor: String
    /// The oldest cursor still in the log: `since` must not be older.
    public var oldestCursor: String
    /// The id of the peer (52 characters) or group (32 hex digits) the watch follows, null
    /// for every event: what to watch again after a reconnect, since a name may have changed
    /// meanwhile (found by QA: `watch '#ops'` ended after a rename and a restart).
    public var followed: String?

    public init(cursor: String, oldestCursor: String, followed: String? = nil) {
        self.cursor = cursor
        self.oldestCursor = oldestCursor
        self.followed = followed
    }

    enum CodingKeys: String, CodingKey { case cursor, oldestCursor, followed }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            cursor: try container.decode(String.self, forKey: .cursor),
            oldestCursor: try container.decode(String.self, forKey: .oldestCursor),
            followed: try container.decodeIfPresent(String.self, forKey: .followed))
    }

    /// `followed` as null when there is none: every listed field is present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cursor, forKey: .cursor)
        try container.encode(oldestCursor, forKey: .oldestCursor)
        try container.encode(followed, forKey: .followed)
    }
}

public enum EventType: String, Codable, Sendable, CaseIterable {
    case messageReceived = "message.received"
    case messageStatus = "message.status"
    case peerPresence = "peer.presence"
    case peerTyping = "peer.typing"
    case peerNew = "peer.new"
    case peerKeyMismatch = "peer.keyMismatch"
    case conversationRead = "conversation.read"
    case groupChanged = "group.changed"
    case requestNew = "request.new"
}

/// One event (PRODUCT.md §4), the params of an `event` notification. `message`, `peer`,
/// `conversation` and `typing` are null where they do not apply.
public struct EventInfo: Codable, Sendable, Hashable {
    /// Opaque, increasing; `watch --since` takes it.
    public var cursor: String
    public var type: EventType
    public var at: Timestamp
    /// `message.received`, `message.status`.
    public var message: MessageInfo?
    /// `peer.*` and `conversation.read`: the peer concerned.
    public var peer: PeerInfo?
    /// `conversation.read`: the conversation after it was read.
    public var conversation: ConversationInfo?
    /// `peer.typing`.
    public var typing: Bool?
    /// `group.changed`, and events about a group message: the group as it is now. The key
    /// is absent from other events.
    public var group: GroupInfo?

    public init(
        cursor: String, type: EventType, at: Timestamp, message: MessageInfo? = nil,
        peer: PeerInfo? = nil, conversation: ConversationInfo? = nil, typing: Bool? = nil
    ) {
        self.cursor = cursor
        self.type = type
        self.at = at
        self.message = message
        self.peer = peer
        self.conversation = conversation
        self.typing = typing
    }

    enum CodingKeys: String, CodingKey {
        case cursor, type, at, message, peer, conversation, typing, group
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cursor, forKey: .cursor)
        try container.encode(type, forKey: .type)
        try container.encode(at, forKey: .at)
        try container.encode(message, forKey: .message)
        try container.encode(peer, forKey: .peer)
        try container.encode(conversation, forKey: .conversation)
        try container.encode(typing, forKey: .typing)
        if let group { try container.encode(group, forKey: .group) }
    }
}
