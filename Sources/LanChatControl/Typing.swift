/// `typing` (PROTOCOL.md §9.6): tells a peer that the local user is typing to it, or stopped.
/// `lanchat chat` sends `typing: true` at most every 2 s while a line is being written and
/// `typing: false` when the line is cleared or sent. The daemon forwards it as TYPING on the
/// established session; nothing is stored, and an offline peer simply does not learn it.
public struct TypingParams: Codable, Sendable, Hashable {
    /// A PEER argument.
    public var peer: String
    public var typing: Bool

    public init(peer: String, typing: Bool) {
        self.peer = peer
        self.typing = typing
    }
}

public struct TypingResult: Codable, Sendable, Hashable {
    /// Whether TYPING went out: false when no session with the peer is established, or when
    /// a `typing: true` came within 2 s of the last one sent (the daemon's own rate limit).
    public var sent: Bool

    public init(sent: Bool) {
        self.sent = sent
    }
}

extension Methods {
    public enum Typing: ControlMethod {
        public typealias Params = TypingParams
        public typealias Result = TypingResult
        public static let name = "typing"
    }
}
