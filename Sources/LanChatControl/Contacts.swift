/// The contact methods (PRODUCT.md §4, §6): `contacts`, `add`, `alias`, `verify`, `block`,
/// `unblock`, `remove`, `accept`. Their params' daemon-free checks are in
/// `ContactsValidation.swift`, run by the daemon and the fuzz target alike.

extension Methods {
    public enum Contacts: ControlMethod {
        public typealias Params = NoParams
        public typealias Result = ContactsResult
        public static let name = "contacts"
    }

    public enum Add: ControlMethod {
        public typealias Params = AddParams
        public typealias Result = PeerResult
        public static let name = "add"
    }

    public enum Alias: ControlMethod {
        public typealias Params = AliasParams
        public typealias Result = PeerResult
        public static let name = "alias"
    }

    /// Without `number`, answers the safety number; with it, compares and marks the peer
    /// verified on a match, or fails (`failed`, exit 1) on a mismatch, changing nothing.
    public enum Verify: ControlMethod {
        public typealias Params = VerifyParams
        public typealias Result = VerifyResult
        public static let name = "verify"
    }

    public enum Block: ControlMethod {
        public typealias Params = PeerParams
        public typealias Result = PeerResult
        public static let name = "block"
    }

    public enum Unblock: ControlMethod {
        public typealias Params = PeerParams
        public typealias Result = PeerResult
        public static let name = "unblock"
    }

    public enum Remove: ControlMethod {
        public typealias Params = RemoveParams
        public typealias Result = RemoveResult
        public static let name = "remove"
    }

    public enum Accept: ControlMethod {
        public typealias Params = PeerParams
        public typealias Result = PeerResult
        public static let name = "accept"
    }
}

/// Params of a method that takes one PEER argument.
public struct PeerParams: Codable, Sendable, Hashable {
    public var peer: String

    public init(peer: String) {
        self.peer = peer
    }
}

public struct AddParams: Codable, Sendable, Hashable {
    /// The local name (alias) to give the new contact.
    public var name: String
    /// Its 52-character id (base32 of its public key).
    public var id: String

    public init(name: String, id: String) {
        self.name = name
        self.id = id
    }
}

public struct AliasParams: Codable, Sendable, Hashable {
    public var peer: String
    /// The new alias; exactly one of `name` and `clear: true`.
    public var name: String?
    public var clear: Bool?

    public init(peer: String, name: String? = nil, clear: Bool? = nil) {
        self.peer = peer
        self.name = name
        self.clear = clear
    }
}

public struct VerifyParams: Codable, Sendable, Hashable {
    public var peer: String
    /// The safety number the other side sees: 60 digits, spaces allowed anywhere.
    public var number: String?
    /// "Verify and link" (PROTOCOL.md §3.8 row 7): `peer` is a contact's new key; the earlier
    /// key its key-change warning names hands it its conversation, alias and contact status,
    /// and the messages held for it go out to `peer`. With `number`, only when the numbers
    /// match (then verified); without, `peer` stays unverified.
    public var link: Bool?

    public init(peer: String, number: String? = nil, link: Bool? = nil) {
        self.peer = peer
        self.number = number
        self.link = link
    }
}

public struct RemoveParams: Codable, Sendable, Hashable {
    public var peer: String
    /// Also delete the conversation (queued messages still go out).
    public var purge: Bool?

    public init(peer: String, purge: Bool? = nil) {
        self.peer = peer
        self.purge = purge
    }
}

/// `remove`: the peer as it is now, and with `purge`, what the purge kept.
public struct RemoveResult: Codable, Sendable, Hashable {
    public var peer: PeerInfo
    /// With `purge` only: messages of the conversation that were kept because they are still
    /// on their way to the peer (they go out as before and `history` shows them).
    public var kept: Int?

    public init(peer: PeerInfo, kept: Int? = nil) {
        self.peer = peer
        self.kept = kept
    }
}

/// The peer a contact method changed, as it is now.
public struct PeerResult: Codable, Sendable, Hashable {
    public var peer: PeerInfo
    /// `accept GROUP`: the group accepted (`peer` is the member who added us). The key is
    /// absent from every other answer.
    public var group: GroupInfo?

    public init(peer: PeerInfo) {
        self.peer = peer
    }

    enum CodingKeys: String, CodingKey { case peer, group }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peer, forKey: .peer)
        if let group { try container.encode(group, forKey: .group) }
    }
}

public struct VerifyResult: Codable, Sendable, Hashable {
    public var peer: PeerInfo
    /// 60 digits, no spaces (shown as 12 groups of 5).
    public var safetyNumber: String
    /// Whether `number` was given and matched (then `peer.trust` is `verified`); false when
    /// no number was given.
    public var verified: Bool
    /// With `link`: what moved to `peer`. The key is absent otherwise.
    public var linked: LinkedInfo?
    /// Without `link`: the earlier key whose name `peer` took (its key-change warning, pending
    /// or settled) and whose conversation it can still take over with `link`. Absent when
    /// there is none.
    public var canReplace: PeerCandidate?

    public init(
        peer: PeerInfo, safetyNumber: String, verified: Bool, linked: LinkedInfo? = nil,
        canReplace: PeerCandidate? = nil
    ) {
        self.peer = peer
        self.safetyNumber = safetyNumber
        self.verified = verified
        self.linked = linked
        self.canReplace = canReplace
    }

    enum CodingKeys: String, CodingKey { case peer, safetyNumber, verified, linked, canReplace }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peer, forKey: .peer)
        try container.encode(safetyNumber, forKey: .safetyNumber)
        try container.encode(verified, forKey: .verified)
        if let linked { try container.encode(linked, forKey: .linked) }
        if let canReplace { try container.encode(canReplace, forKey: .canReplace) }
    }
}

/// What `verify --link` moved from the earlier key to the new one.
public struct LinkedInfo: Codable, Sendable, Hashable {
    /// The earlier key, as it is now (no alias, not a contact).
    public var previous: PeerCandidate
    /// 1:1 messages, sent and received, now in the new key's conversation.
    public var messages: Int
    /// Of those, the ones that were held for the earlier key and now go to the new one.
    public var released: Int
    /// The groups the earlier key is still a member of: members are keys, so the link does
    /// not change them (`group add` the new key, `group remove` the earlier one).
    public var groups: [GroupInfo]

    public init(previous: PeerCandidate, messages: Int, released: Int, groups: [GroupInfo] = []) {
        self.previous = previous
        self.messages = messages
        self.released = released
        self.groups = groups
    }
}

/// A pending message request (PRODUCT.md §4, "contact request").
public struct ContactRequestInfo: Codable, Sendable, Hashable {
    public var peer: PeerInfo
    /// Messages received from the peer so far.
    public var count: Int
    /// The oldest of them (null if it was deleted).
    public var firstMessage: MessageInfo?
    /// When the first one arrived.
    public var receivedAt: Timestamp

    public init(peer: PeerInfo, count: Int, firstMessage: MessageInfo?, receivedAt: Timestamp) {
        self.peer = peer
        self.count = count
        self.firstMessage = firstMessage
        self.receivedAt = receivedAt
    }

    enum CodingKeys: String, CodingKey { case peer, count, firstMessage, receivedAt }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peer, forKey: .peer)
        try container.encode(count, forKey: .count)
        try container.encode(firstMessage, forKey: .firstMessage)
        try container.encode(receivedAt, forKey: .receivedAt)
    }
}

public struct ContactsResult: Codable, Sendable, Hashable {
    /// Peers added, accepted or written to first (blocked ones are under `blocked`).
    public var contacts: [PeerInfo]
    public var blocked: [PeerInfo]
    /// Pending message requests, oldest first.
    public var requests: [ContactRequestInfo]

    public init(contacts: [PeerInfo], blocked: [PeerInfo], requests: [ContactRequestInfo]) {
        self.contacts = contacts
        self.blocked = blocked
        self.requests = requests
    }
}

/// A known name now used by a new key (PRODUCT.md §6, PROTOCOL.md §3.8 row 7), in `who` and
/// `status` until the new key is verified, blocked or removed.
public struct KeyChangeInfo: Codable, Sendable, Hashable {
    /// The new key's peer.
    public var peer: PeerCandidate
    /// The earlier key that used the name (null if it is no longer known).
    public var previous: PeerCandidate?

    public init(peer: PeerCandidate, previous: PeerCandidate?) {
        self.peer = peer
        self.previous = previous
    }

    enum CodingKeys: String, CodingKey { case peer, previous }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peer, forKey: .peer)
        try container.encode(previous, forKey: .previous)
    }

    /// Where messages to `previous` are while this warning stands (a `send` to it, or a wait
    /// that ran out): held for it, and what the user can do about them.
    public var heldText: String {
        let label = previous.map { earlier in
            let name = earlier.alias ?? earlier.name
            return name.isEmpty ? earlier.keyTag : "\(name)'s key \(earlier.keyTag)"
        }
        return "held for \(label ?? "the earlier key"), now that \(peer.keyTag) uses its name: "
            + "delivered if that key comes back; if \(peer.keyTag) is the same person, compare "
            + "safety numbers with 'lanchat verify \(peer.keyTag)', then "
            + "'lanchat verify \(peer.keyTag) --link' sends them to the new key"
    }

    /// The one-line warning `who` and `status` print.
    /// Said with the name the new key took, the earlier key's (found by QA: a new key that
    /// took "carol" and later called itself "alice" was said to be alice's new key).
    public var warning: String {
        // What it calls itself: its own name, not the alias we gave it (found by QA: "it now
        // calls itself cnew", our alias).
        let now = peer.name
        let claimed = previous.map { $0.alias ?? $0.name } ?? now
        let was = previous.map { "; \($0.keyTag) had it before" } ?? ""
        let calls = now != claimed && !now.isEmpty ? "; it now calls itself \(now)" : ""
        return
            "\(claimed) is now using a different key (\(peer.keyTag)\(was)\(calls)): compare safety numbers with 'lanchat verify \(peer.keyTag)'"
    }
}

/// A pinned peer dialled at an address where another key answered (PROTOCOL.md §3.8 row 4):
/// the session was refused before it opened, the pin kept. Shown by `who` and `status` until a
/// session with the pinned key opens.
public struct IdentityAlertInfo: Codable, Sendable, Hashable {
    /// The pinned peer that was dialled.
    public var peer: PeerCandidate
    /// Where it was dialled, `host:port`.
    public var address: String
    /// The key tag of the key that answered there.
    public var presentedKeyTag: String
    /// When it last happened.
    public var at: Timestamp

    public init(peer: PeerCandidate, address: String, presentedKeyTag: String, at: Timestamp) {
        self.peer = peer
        self.address = address
        self.presentedKeyTag = presentedKeyTag
        self.at = at
    }

    /// The one-line warning `who` and `status` print (PROTOCOL.md §3.8 row 4's words).
    public var warning: String {
        let name = peer.alias ?? (peer.name.isEmpty ? nil : peer.name)
        let whose =
            name.map { "\($0)'s identity (\(peer.keyTag))" } ?? "the identity of \(peer.keyTag)"
        return "could not confirm \(whose): the device at \(address) presented a different key "
            + "(key tag \(presentedKeyTag)). This may be an impersonation, or \(name ?? "its owner") "
            + "reinstalled; verify the safety number before trusting it"
    }
}
