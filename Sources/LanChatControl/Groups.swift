/// Params, results and shapes of the group methods (PRODUCT.md §4, issue 13): `group.create`,
/// `group.add`, `group.remove`, `group.rename`, `group.leave` and `groups`. A GROUP argument
/// is a group id (32 hex digits), a name, a unique name prefix, or `#NAME`.

/// A group as the API shows it: `id` (32 hex digits), `name`, `members` (peer objects, own
/// included), `version`.
public struct GroupInfo: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var members: [PeerInfo]
    public var version: UInt64
    /// True for a pending group request (`--accept contacts`: a non-contact added us; `accept
    /// GROUP` takes it). The key is absent otherwise.
    public var request: Bool?
    /// True when we are no longer a member (we left, or a member removed us): we hold the
    /// group and its history, and nothing sent to it reaches us. The key is absent otherwise.
    public var left: Bool?

    public init(id: String, name: String, members: [PeerInfo], version: UInt64) {
        self.id = id
        self.name = name
        self.members = members
        self.version = version
    }

    enum CodingKeys: String, CodingKey { case id, name, members, version, request, left }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(members, forKey: .members)
        try container.encode(version, forKey: .version)
        if request == true { try container.encode(true, forKey: .request) }
        if left == true { try container.encode(true, forKey: .left) }
    }
}

/// One member's copy of an own group message: `{peer, status, deliveredAt, readAt,
/// failReason}`. The message's own `failReason` is one copy's; this says which member's copy
/// failed and why, as a 1:1 message's does (members may fail for different reasons).
public struct RecipientInfo: Codable, Sendable, Hashable {
    public var peer: String
    public var status: MessageStatus
    public var deliveredAt: Timestamp?
    public var readAt: Timestamp?
    /// Why this copy failed; nil unless `status` is `failed`. Absent from a daemon before it.
    public var failReason: String?

    public init(
        peer: String, status: MessageStatus, deliveredAt: Timestamp? = nil,
        readAt: Timestamp? = nil, failReason: String? = nil
    ) {
        self.peer = peer
        self.status = status
        self.deliveredAt = deliveredAt
        self.readAt = readAt
        self.failReason = failReason
    }

    enum CodingKeys: String, CodingKey { case peer, status, deliveredAt, readAt, failReason }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peer, forKey: .peer)
        try container.encode(status, forKey: .status)
        try container.encode(deliveredAt, forKey: .deliveredAt)
        try container.encode(readAt, forKey: .readAt)
        try container.encode(failReason, forKey: .failReason)
    }
}

public struct GroupCreateParams: Codable, Sendable, Hashable {
    /// ≤ 64 bytes, not only white space.
    public var name: String
    /// PEER arguments, at least one; we are a member without being listed.
    public var peers: [String]

    public init(name: String, peers: [String]) {
        self.name = name
        self.peers = peers
    }
}

/// `group.add` and `group.remove`.
public struct GroupMembersParams: Codable, Sendable, Hashable {
    public var group: String
    public var peers: [String]

    public init(group: String, peers: [String]) {
        self.group = group
        self.peers = peers
    }
}

public struct GroupRenameParams: Codable, Sendable, Hashable {
    public var group: String
    public var name: String

    public init(group: String, name: String) {
        self.group = group
        self.name = name
    }
}

public struct GroupParams: Codable, Sendable, Hashable {
    public var group: String

    public init(group: String) {
        self.group = group
    }
}

public struct GroupResult: Codable, Sendable, Hashable {
    public var group: GroupInfo

    public init(group: GroupInfo) {
        self.group = group
    }
}

public struct GroupsResult: Codable, Sendable, Hashable {
    /// By name.
    public var groups: [GroupInfo]

    public init(groups: [GroupInfo]) {
        self.groups = groups
    }
}

extension Methods {
    public enum GroupCreate: ControlMethod {
        public typealias Params = GroupCreateParams
        public typealias Result = GroupResult
        public static let name = "group.create"
    }

    public enum GroupAdd: ControlMethod {
        public typealias Params = GroupMembersParams
        public typealias Result = GroupResult
        public static let name = "group.add"
    }

    public enum GroupRemove: ControlMethod {
        public typealias Params = GroupMembersParams
        public typealias Result = GroupResult
        public static let name = "group.remove"
    }

    public enum GroupRename: ControlMethod {
        public typealias Params = GroupRenameParams
        public typealias Result = GroupResult
        public static let name = "group.rename"
    }

    public enum GroupLeave: ControlMethod {
        public typealias Params = GroupParams
        public typealias Result = GroupResult
        public static let name = "group.leave"
    }

    public enum Groups: ControlMethod {
        public typealias Params = NoParams
        public typealias Result = GroupsResult
        public static let name = "groups"
    }
}

/// Group limits (PRODUCT.md §7, issue 13): the same as the wire's (PROTOCOL.md §9.7).
extension ParamsLimits {
    public static let maxGroupMembers = 256
    public static let maxGroupNameBytes = 64
}

/// The checks that need no daemon state, shared with `Fuzz/ControlRequest`.
enum GroupValidation {
    static func name(_ name: String) throws(ControlError) {
        guard !name.isBlankText else { throw .badInput("empty group name") }
        // `#NAME` names a group by NAME: a name starting with '#' could never be named so
        // (found by QA: '#hash' became reachable only as '##hash').
        guard !name.hasPrefix("#") else {
            throw .badInput("a group name cannot start with '#', which is written before it")
        }
        // Found by QA: "ops " beside "ops" made two groups that look alike, and a rename to
        // "ops " a new version of a name that looked unchanged.
        guard name.first?.isWhitespace != true, name.last?.isWhitespace != true else {
            throw .badInput("a group name cannot start or end with white space")
        }
        guard name.utf8.count <= ParamsLimits.maxGroupNameBytes else {
            throw .badInput(
                "group name of \(name.utf8.count) bytes is over the limit of \(ParamsLimits.maxGroupNameBytes)"
            )
        }
        // As an alias: a name typed back as '#name' cannot hold a tab, an escape, or a
        // direction override that shows it (and what follows it) reordered.
        guard !name.unicodeScalars.contains(where: \.isControlOrBidiOverride)
        else { throw .badInput("a group name cannot contain control or bidi characters") }
    }

    static func peers(_ peers: [String]) throws(ControlError) {
        guard !peers.isEmpty else { throw .badInput("no member given") }
        // We are a member too.
        guard peers.count < ParamsLimits.maxGroupMembers else {
            throw .badInput("a group has at most \(ParamsLimits.maxGroupMembers) members")
        }
        guard Set(peers).count == peers.count else {
            throw .badInput("a member is given twice")
        }
    }

    static func group(_ group: String) throws(ControlError) {
        guard !group.isEmpty else { throw .invalidParams("group must not be empty") }
    }
}

extension GroupCreateParams {
    public func validate() throws(ControlError) {
        try GroupValidation.name(name)
        try GroupValidation.peers(peers)
    }
}

extension GroupMembersParams {
    public func validate() throws(ControlError) {
        try GroupValidation.group(group)
        try GroupValidation.peers(peers)
    }
}

extension GroupRenameParams {
    public func validate() throws(ControlError) {
        try GroupValidation.group(group)
        try GroupValidation.name(name)
    }
}

extension GroupParams {
    public func validate() throws(ControlError) {
        try GroupValidation.group(group)
    }
}
