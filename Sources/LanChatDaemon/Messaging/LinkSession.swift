import LanChatCore
import LanChatTransport

/// What a peer link needs from a session: its facts, two ways to write, and close. The
/// transport's `SessionHandle` is the real one; tests drive a link through a double, without
/// sockets. Identity (`===`) tells two sessions with the same peer apart.
protocol LinkSession: AnyObject, Sendable, CustomStringConvertible {
    var remoteKey: PeerKey { get }
    /// First 8 hex digits of the session id, for logs.
    var sessionTag: String { get }
    /// Where we dialled, for an outbound session (the address worth remembering); nil for an
    /// inbound one, whose source port is ephemeral.
    var dialledAddress: Endpoint? { get }
    var establishedAt: ContinuousClock.Instant { get }
    /// The negotiated capability bits (PROTOCOL.md §3.7): group frames only with
    /// `Capabilities.groups`.
    var capabilities: UInt64 { get }
    /// The static key of the side that dialled (for the simultaneous-dial rule, §3.9).
    func initiatorKey(ownKey: PeerKey) -> PeerKey
    /// MSGs: waits while the peer reads slowly (the outbound buffer is capped).
    func send(_ messages: [AppMessage]) async throws
    /// HELLO, ACK, READ, REJECT, PRESENCE: written at once, never waits.
    func sendControl(_ messages: [AppMessage])
    /// Sends CLOSE(reason) and closes; returns once closed. Idempotent.
    func close(_ reason: CloseReason) async
}

extension SessionHandle: LinkSession {
    var sessionTag: String { info.sessionTag }
    var dialledAddress: Endpoint? { info.role == .initiator ? info.remoteAddress : nil }
    var capabilities: UInt64 { info.capabilities }
}
