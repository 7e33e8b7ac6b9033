/// The application messages of PROTOCOL.md §9.1, carried as the payload of one reassembled
/// DATA message. `kind u8 ‖ fields`, integers big-endian, `str` = `u32 length ‖ UTF-8`.
public enum AppMessage: Equatable, Sendable {
    case hello(Hello)
    case message(WireMessage)
    case ack(stream: UInt64, delivered: UInt64)
    case read(stream: UInt64, read: UInt64)
    case typing(Bool)
    case presence(AnnouncedStatus, statusText: String)
    case reject(stream: UInt64, seq: UInt64, reason: RejectReason)
    /// A group's membership (§9.7); only sent on sessions that negotiated
    /// `Capabilities.groups`.
    case group(GroupUpdate)
    /// A kind this version does not know: ignored, so later versions can add kinds.
    case unknown(kind: UInt8)

    enum Kind: UInt8 {
        case hello = 0x01
        case message = 0x02
        case ack = 0x03
        case read = 0x04
        case typing = 0x05
        case presence = 0x06
        case reject = 0x07
        case group = 0x08
    }
}

/// The first application message on every session, in both directions (§9.3).
public struct Hello: Equatable, Sendable {
    public var name: String
    public var presence: AnnouncedStatus
    public var statusText: String
    /// Our outgoing stream to the receiver (0: none yet) and its next unassigned seq.
    public var outStream: UInt64
    public var outNext: UInt64
    /// Our incoming cursor for the receiver's stream.
    public var inStream: UInt64
    public var inDelivered: UInt64
    public var inRead: UInt64

    public init(
        name: String, presence: AnnouncedStatus, statusText: String, outStream: UInt64,
        outNext: UInt64, inStream: UInt64, inDelivered: UInt64, inRead: UInt64
    ) {
        self.name = name
        self.presence = presence
        self.statusText = statusText
        self.outStream = outStream
        self.outNext = outNext
        self.inStream = inStream
        self.inDelivered = inDelivered
        self.inRead = inRead
    }
}

/// A MSG. The text is kept as decoded bytes' verdict: a MSG whose framing is sound but whose
/// text cannot be accepted is still a MSG (it is REJECTed and counts as processed, §9.4).
public struct WireMessage: Equatable, Sendable {
    public var stream: UInt64
    public var seq: UInt64
    public var id: MessageID
    /// Milliseconds since the epoch, sender's clock.
    public var sentAt: Int64
    /// Set when the sender marked it a group message (flags bit 0, §9.7): the group's id.
    public var group: [UInt8]?
    public var text: Text

    public enum Text: Equatable, Sendable {
        case valid(String)
        case unacceptable(RejectReason)
    }

    public init(
        stream: UInt64, seq: UInt64, id: MessageID, sentAt: Int64, group: [UInt8]? = nil,
        text: String
    ) {
        self.init(
            stream: stream, seq: seq, id: id, sentAt: sentAt, group: group, text: .valid(text))
    }

    public init(
        stream: UInt64, seq: UInt64, id: MessageID, sentAt: Int64, group: [UInt8]?, text: Text
    ) {
        self.stream = stream
        self.seq = seq
        self.id = id
        self.sentAt = sentAt
        self.group = group
        self.text = text
    }
}

/// REJECT reasons (§9.1).
public enum RejectReason: Equatable, Sendable, CustomStringConvertible {
    case tooLarge
    case invalidText
    case refusedByPolicy
    case other(UInt16)

    public init(code: UInt16) {
        switch code {
        case 1: self = .tooLarge
        case 2: self = .invalidText
        case 3: self = .refusedByPolicy
        default: self = .other(code)
        }
    }

    public var code: UInt16 {
        switch self {
        case .tooLarge: 1
        case .invalidText: 2
        case .refusedByPolicy: 3
        case .other(let code): code
        }
    }

    /// Why, in the receiver's words: what its log says when it rejects a message (the
    /// `description` is the sender's, and blamed the peer for our own refusal; QA pass 9).
    public var why: String {
        switch self {
        case .tooLarge: "message too large"
        case .invalidText: "invalid text"
        case .refusedByPolicy: "refused by our policy"
        case .other(let code): "reason \(code)"
        }
    }

    /// The `failReason` shown to the sender's user.
    public var description: String {
        switch self {
        case .tooLarge: "rejected by the peer: message too large"
        case .invalidText: "rejected by the peer: invalid text"
        case .refusedByPolicy: "rejected by the peer: refused by its policy"
        case .other(let code): "rejected by the peer (reason \(code))"
        }
    }
}
