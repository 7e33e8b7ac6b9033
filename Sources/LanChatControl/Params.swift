/// Request params: the CLI option names in camelCase (PRODUCT.md §5). Optional fields may be
/// absent or null; the daemon applies the documented defaults.

public struct WhoParams: Codable, Sendable, Hashable {
    /// Case-insensitive filter on name, alias, key tag, id and host.
    public var query: String?
    /// Also offline and discovering peers.
    public var all: Bool?

    public init(query: String? = nil, all: Bool? = nil) {
        self.query = query
        self.all = all
    }
}

public struct SendParams: Codable, Sendable, Hashable {
    /// A PEER argument: id, key tag, alias, name or unique prefix (PRODUCT.md §4).
    public var peer: String
    /// One message. Exactly one of `text` and `texts` is given.
    public var text: String?
    /// Several messages, stored in this order in one transaction (`send --lines` batches).
    public var texts: [String]?
    /// Answer only when every message is delivered (or the timeout passes).
    public var wait: Bool?
    /// Answer only when every message is read (or the timeout passes).
    public var waitRead: Bool?
    /// Seconds for `wait`/`waitRead`; default 30. On timeout the error `timedOut` carries the
    /// ids, and the messages stay queued.
    public var timeout: Double?
    /// Answer with the messages' ids only (`SendResult.ids`), without the message objects:
    /// what `lanchat send` prints. A batch of 1 000 100-byte texts then answers in about 40 KB
    /// instead of nearly 400.
    public var idsOnly: Bool?

    public init(
        peer: String, text: String? = nil, texts: [String]? = nil, wait: Bool? = nil,
        waitRead: Bool? = nil, timeout: Double? = nil, idsOnly: Bool? = nil
    ) {
        self.peer = peer
        self.text = text
        self.texts = texts
        self.wait = wait
        self.waitRead = waitRead
        self.timeout = timeout
        self.idsOnly = idsOnly
    }
}

public struct HistoryParams: Codable, Sendable, Hashable {
    public var peer: String
    /// Page size, 1…1000, default 50.
    public var limit: Int?
    /// Only messages older than the message with this id.
    public var before: String?
    /// Only messages newer than the message with this id.
    public var after: String?

    public init(peer: String, limit: Int? = nil, before: String? = nil, after: String? = nil) {
        self.peer = peer
        self.limit = limit
        self.before = before
        self.after = after
    }
}

public struct PresenceParams: Codable, Sendable, Hashable {
    public var status: Availability
    /// Status text, ≤ 128 bytes; absent keeps the current text, "" clears it.
    public var text: String?

    public init(status: Availability, text: String? = nil) {
        self.status = status
        self.text = text
    }
}

public struct RetryParams: Codable, Sendable, Hashable {
    /// A message id, or a PEER argument; absent: every failed message.
    public var target: String?

    public init(target: String? = nil) {
        self.target = target
    }
}

public struct BackupParams: Codable, Sendable, Hashable {
    /// Where to write the copy: an absolute path that does not exist yet (the CLI resolves a
    /// relative one against its working directory).
    public var path: String

    public init(path: String) {
        self.path = path
    }
}
