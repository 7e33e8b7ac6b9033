/// The stable JSON shapes of PRODUCT.md §4. Fields may be added, never renamed or removed.
/// Every field is always present; a field that does not apply is `null`, so scripts can rely
/// on the key being there.

public enum Presence: String, Codable, Sendable, CaseIterable {
    case online, offline, discovering
}

/// A user's chosen availability; the JSON field is called `status` (PRODUCT.md §4).
public enum Availability: String, Codable, Sendable, CaseIterable {
    case available, away, busy
}

public enum Trust: String, Codable, Sendable, CaseIterable {
    case unverified, verified, blocked
}

public enum MessageDirection: String, Codable, Sendable {
    case incoming = "in"
    case outgoing = "out"
}

public enum MessageStatus: String, Codable, Sendable, CaseIterable {
    case queued, sent, delivered, read, failed
}

public struct PeerInfo: Codable, Sendable, Hashable {
    public var id: String
    public var keyTag: String
    public var name: String
    public var alias: String?
    public var presence: Presence
    public var status: Availability
    public var statusText: String
    public var trust: Trust
    public var contact: Bool
    public var lastSeen: Timestamp?
    /// `host:port` strings (`[v6]:port` for IPv6) where the peer was last reached or announced.
    public var addresses: [String]

    public init(
        id: String, keyTag: String, name: String, alias: String? = nil,
        presence: Presence, status: Availability = .available, statusText: String = "",
        trust: Trust = .unverified, contact: Bool = false, lastSeen: Timestamp? = nil,
        addresses: [String] = []
    ) {
        self.id = id
        self.keyTag = keyTag
        self.name = name
        self.alias = alias
        self.presence = presence
        self.status = status
        self.statusText = statusText
        self.trust = trust
        self.contact = contact
        self.lastSeen = lastSeen
        self.addresses = addresses
    }

    /// The alias when set, else the display name.
    public var displayName: String { alias ?? name }

    enum CodingKeys: String, CodingKey {
        case id, keyTag, name, alias, presence, status, statusText, trust, contact, lastSeen
        case addresses
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(keyTag, forKey: .keyTag)
        try container.encode(name, forKey: .name)
        try container.encode(alias, forKey: .alias)
        try container.encode(presence, forKey: .presence)
        try container.encode(status, forKey: .status)
        try container.encode(statusText, forKey: .statusText)
        try container.encode(trust, forKey: .trust)
        try container.encode(contact, forKey: .contact)
        try container.encode(lastSeen, forKey: .lastSeen)
        try container.encode(addresses, forKey: .addresses)
    }
}

public struct MessageInfo: Codable, Sendable, Hashable {
    /// Lower-case UUID text, `8-4-4-4-12`.
    public var id: String
    /// The peer's 52-character id: the recipient of an outgoing message, the sender of an
    /// incoming one.
    public var peer: String
    public var direction: MessageDirection
    public var seq: UInt64
    public var text: String
    public var createdAt: Timestamp
    /// Incoming only: when it was stored here.
    public var receivedAt: Timestamp?
    /// Incoming only: whether the local user has read it.
    public var read: Bool?
    /// Outgoing only.
    public var status: MessageStatus?
    public var failReason: String?
    public var deliveredAt: Timestamp?
    public var readAt: Timestamp?
    /// Group messages: the group's id (null on a direct message), and, absent from direct
    /// messages' JSON, the author's peer id (own messages: own id) and on own messages each
    /// member's copy, with `status` then the least advanced of them (PRODUCT.md §4).
    public var group: String?
    public var sender: String?
    public var recipients: [RecipientInfo]?
    /// True where `text` is only the start of the message's (at most `previewBytes`): the
    /// preview a conversation's `lastMessage` and a request's `firstMessage` carry, so that
    /// `inbox` and `contacts` stay small however many conversations there are. `history`
    /// has the whole text. The key is absent otherwise.
    public var truncated: Bool?

    /// The most of a preview's text (`truncated`), in UTF-8 bytes.
    public static let previewBytes = 1_024

    /// This message with its text cut to `previewBytes` at a character's end, and
    /// `truncated` set, when it is longer.
    public func preview(maxBytes: Int = previewBytes) -> MessageInfo {
        guard text.utf8.count > maxBytes else { return self }
        var kept = 0
        var end = text.startIndex
        for character in text {
            let size = character.utf8.count
            guard kept + size <= maxBytes else { break }
            kept += size
            end = text.index(after: end)
        }
        var cut = self
        cut.text = String(text[..<end])
        cut.truncated = true
        return cut
    }

    public init(
        id: String, peer: String, direction: MessageDirection, seq: UInt64, text: String,
        createdAt: Timestamp, receivedAt: Timestamp? = nil, read: Bool? = nil,
        status: MessageStatus? = nil, failReason: String? = nil, deliveredAt: Timestamp? = nil,
        readAt: Timestamp? = nil
    ) {
        self.id = id
        self.peer = peer
        self.direction = direction
        self.seq = seq
        self.text = text
        self.createdAt = createdAt
        self.receivedAt = receivedAt
        self.read = read
        self.status = status
        self.failReason = failReason
        self.deliveredAt = deliveredAt
        self.readAt = readAt
    }

    enum CodingKeys: String, CodingKey {
        case id, peer, direction, seq, text, createdAt, receivedAt, read, status, failReason
        case deliveredAt, readAt, group, sender, recipients, truncated
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(peer, forKey: .peer)
        try container.encode(direction, forKey: .direction)
        try container.encode(seq, forKey: .seq)
        try container.encode(text, forKey: .text)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(read, forKey: .read)
        try container.encode(status, forKey: .status)
        try container.encode(failReason, forKey: .failReason)
        try container.encode(deliveredAt, forKey: .deliveredAt)
        try container.encode(readAt, forKey: .readAt)
        // `group` is null on a 1:1 message (PRODUCT.md §4); `sender` and `recipients`
        // belong to group messages only.
        try container.encode(group, forKey: .group)
        if group != nil {
            try container.encode(sender, forKey: .sender)
            try container.encode(recipients, forKey: .recipients)
        }
        if truncated == true { try container.encode(true, forKey: .truncated) }
    }
}

public struct ConversationInfo: Codable, Sendable, Hashable {
    /// The other side of a 1:1 conversation; null for a group conversation.
    public var peer: PeerInfo?
    /// A group conversation's group; null for a 1:1 conversation (PRODUCT.md §4).
    public var group: GroupInfo?
    public var unread: Int
    public var lastMessage: MessageInfo?
    public var archived: Bool
    public var updatedAt: Timestamp

    public init(
        peer: PeerInfo?, group: GroupInfo? = nil, unread: Int, lastMessage: MessageInfo?,
        archived: Bool, updatedAt: Timestamp
    ) {
        self.peer = peer
        self.group = group
        self.unread = unread
        self.lastMessage = lastMessage
        self.archived = archived
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case peer, group, unread, lastMessage, archived, updatedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peer, forKey: .peer)
        try container.encode(group, forKey: .group)
        try container.encode(unread, forKey: .unread)
        try container.encode(lastMessage, forKey: .lastMessage)
        try container.encode(archived, forKey: .archived)
        try container.encode(updatedAt, forKey: .updatedAt)
    }

    /// The name the conversation is shown by: the group's, else the peer's alias or name.
    public var title: String {
        if let group { return "#" + group.name }
        return peer?.displayName ?? ""
    }
}
