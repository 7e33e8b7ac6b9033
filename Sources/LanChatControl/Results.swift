/// Results of the control API methods. Each is an object so fields can be added later.

public struct StatusResult: Codable, Sendable, Hashable {
    public var name: String
    public var id: String
    public var keyTag: String
    public var status: Availability
    public var statusText: String
    /// The daemon's version, e.g. `0.1.0`.
    public var version: String
    public var apiVersion: Int
    public var startedAt: Timestamp
    public var uptimeSeconds: Double
    /// `host:port` of every TCP listener.
    public var listening: [String]
    /// `running`, `connecting` (waiting for avahi-daemon), `failed` or `disabled` (--no-mdns).
    public var avahi: String
    public var peersOnline: Int
    public var queued: Int
    public var unread: Int
    public var dataDir: String
    public var socket: String
    /// Known names now used by new keys (PRODUCT.md §6), each a warning to show.
    public var keyChanges: [KeyChangeInfo]
    /// Pinned peers whose address answered with another key (as `who`'s).
    public var identityAlerts: [IdentityAlertInfo]
    /// Why the last reload (SIGHUP) kept the running configuration, or nil when it applied
    /// (or none was asked for): the file on disk is then not what runs.
    public var reloadError: String?

    public init(
        name: String, id: String, keyTag: String, status: Availability, statusText: String,
        version: String, apiVersion: Int, startedAt: Timestamp, uptimeSeconds: Double,
        listening: [String], avahi: String, peersOnline: Int, queued: Int, unread: Int,
        dataDir: String, socket: String, keyChanges: [KeyChangeInfo] = [],
        identityAlerts: [IdentityAlertInfo] = [], reloadError: String? = nil
    ) {
        self.name = name
        self.id = id
        self.keyTag = keyTag
        self.status = status
        self.statusText = statusText
        self.version = version
        self.apiVersion = apiVersion
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.listening = listening
        self.avahi = avahi
        self.peersOnline = peersOnline
        self.queued = queued
        self.unread = unread
        self.dataDir = dataDir
        self.socket = socket
        self.keyChanges = keyChanges
        self.identityAlerts = identityAlerts
        self.reloadError = reloadError
    }

    enum CodingKeys: String, CodingKey {
        case name, id, keyTag, status, statusText, version, apiVersion, startedAt
        case uptimeSeconds, listening, avahi, peersOnline, queued, unread, dataDir, socket
        case keyChanges, identityAlerts, reloadError
    }

    /// Every field, `reloadError` as null when there is none (every listed field is present).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(id, forKey: .id)
        try container.encode(keyTag, forKey: .keyTag)
        try container.encode(status, forKey: .status)
        try container.encode(statusText, forKey: .statusText)
        try container.encode(version, forKey: .version)
        try container.encode(apiVersion, forKey: .apiVersion)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(uptimeSeconds, forKey: .uptimeSeconds)
        try container.encode(listening, forKey: .listening)
        try container.encode(avahi, forKey: .avahi)
        try container.encode(peersOnline, forKey: .peersOnline)
        try container.encode(queued, forKey: .queued)
        try container.encode(unread, forKey: .unread)
        try container.encode(dataDir, forKey: .dataDir)
        try container.encode(socket, forKey: .socket)
        try container.encode(keyChanges, forKey: .keyChanges)
        try container.encode(identityAlerts, forKey: .identityAlerts)
        try container.encode(reloadError, forKey: .reloadError)
    }

    /// `keyChanges`, `identityAlerts` and `reloadError` may be absent (a daemon older than
    /// them).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            id: try container.decode(String.self, forKey: .id),
            keyTag: try container.decode(String.self, forKey: .keyTag),
            status: try container.decode(Availability.self, forKey: .status),
            statusText: try container.decode(String.self, forKey: .statusText),
            version: try container.decode(String.self, forKey: .version),
            apiVersion: try container.decode(Int.self, forKey: .apiVersion),
            startedAt: try container.decode(Timestamp.self, forKey: .startedAt),
            uptimeSeconds: try container.decode(Double.self, forKey: .uptimeSeconds),
            listening: try container.decode([String].self, forKey: .listening),
            avahi: try container.decode(String.self, forKey: .avahi),
            peersOnline: try container.decode(Int.self, forKey: .peersOnline),
            queued: try container.decode(Int.self, forKey: .queued),
            unread: try container.decode(Int.self, forKey: .unread),
            dataDir: try container.decode(String.self, forKey: .dataDir),
            socket: try container.decode(String.self, forKey: .socket),
            keyChanges: try container.decodeIfPresent([KeyChangeInfo].self, forKey: .keyChanges)
                ?? [],
            identityAlerts: try container.decodeIfPresent(
                [IdentityAlertInfo].self, forKey: .identityAlerts) ?? [],
            reloadError: try container.decodeIfPresent(String.self, forKey: .reloadError))
    }
}

public struct WhoResult: Codable, Sendable, Hashable {
    public var peers: [PeerInfo]
    /// Known names now used by new keys (PRODUCT.md §6), each a warning to show.
    public var keyChanges: [KeyChangeInfo]
    /// Pinned peers whose address answered with another key, each a warning to show.
    public var identityAlerts: [IdentityAlertInfo]

    public init(
        peers: [PeerInfo], keyChanges: [KeyChangeInfo] = [],
        identityAlerts: [IdentityAlertInfo] = []
    ) {
        self.peers = peers
        self.keyChanges = keyChanges
        self.identityAlerts = identityAlerts
    }

    enum CodingKeys: String, CodingKey { case peers, keyChanges, identityAlerts }

    /// `keyChanges` and `identityAlerts` may be absent (a daemon older than them).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            peers: try container.decode([PeerInfo].self, forKey: .peers),
            keyChanges: try container.decodeIfPresent([KeyChangeInfo].self, forKey: .keyChanges)
                ?? [],
            identityAlerts: try container.decodeIfPresent(
                [IdentityAlertInfo].self, forKey: .identityAlerts) ?? [])
    }
}

public struct SendResult: Codable, Sendable, Hashable {
    /// The stored messages' ids, in order.
    public var ids: [String]
    /// The stored messages in order; with `wait`/`waitRead`, their statuses at the answer.
    /// Nil (absent from the JSON) when the request asked for `idsOnly`.
    public var messages: [MessageInfo]?
    /// Set when the messages are held: another key now uses the recipient's name (a pending
    /// key-change warning, PRODUCT.md §6), so they wait for the earlier key, which may never
    /// come back. `previous` is the recipient. Absent otherwise.
    public var keyChange: KeyChangeInfo?

    public init(messages: [MessageInfo]) {
        ids = messages.map(\.id)
        self.messages = messages
    }

    /// The answer to an `idsOnly` request.
    public init(ids: [String]) {
        self.ids = ids
        messages = nil
    }

    /// A daemon from before `ids` answers with the messages alone; their ids are the same.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let messages = try container.decodeIfPresent([MessageInfo].self, forKey: .messages)
        let ids = try container.decodeIfPresent([String].self, forKey: .ids)
        guard let ids = ids ?? messages?.map(\.id) else {
            throw DecodingError.keyNotFound(
                CodingKeys.ids,
                DecodingError.Context(
                    codingPath: container.codingPath, debugDescription: "neither ids nor messages"))
        }
        self.ids = ids
        self.messages = messages
        keyChange = try container.decodeIfPresent(KeyChangeInfo.self, forKey: .keyChange)
    }
}

public struct HistoryResult: Codable, Sendable, Hashable {
    public var peer: PeerInfo
    /// Oldest first.
    public var messages: [MessageInfo]
    /// Whether older messages exist before the first one returned.
    public var hasOlder: Bool
    /// Whether newer messages exist after the last one returned (a page `before` or `after`
    /// an id; the latest page has none). False from a daemon that did not send it.
    public var hasNewer: Bool
    /// A group conversation's group (then `peer` is our own peer object); absent otherwise.
    public var group: GroupInfo?

    public init(peer: PeerInfo, messages: [MessageInfo], hasOlder: Bool, hasNewer: Bool = false) {
        self.peer = peer
        self.messages = messages
        self.hasOlder = hasOlder
        self.hasNewer = hasNewer
    }

    enum CodingKeys: String, CodingKey { case peer, messages, hasOlder, hasNewer, group }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        peer = try container.decode(PeerInfo.self, forKey: .peer)
        messages = try container.decode([MessageInfo].self, forKey: .messages)
        hasOlder = try container.decode(Bool.self, forKey: .hasOlder)
        hasNewer = try container.decodeIfPresent(Bool.self, forKey: .hasNewer) ?? false
        group = try container.decodeIfPresent(GroupInfo.self, forKey: .group)
    }
}

public struct RetryResult: Codable, Sendable, Hashable {
    /// The messages put back in the queue.
    public var messages: [MessageInfo]

    public init(messages: [MessageInfo]) {
        self.messages = messages
    }
}

public struct BackupResult: Codable, Sendable, Hashable {
    /// The absolute path of the copy.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int
    /// Messages in the copy, counted in the copy itself.
    public var messages: Int

    public init(path: String, bytes: Int, messages: Int) {
        self.path = path
        self.bytes = bytes
        self.messages = messages
    }
}
