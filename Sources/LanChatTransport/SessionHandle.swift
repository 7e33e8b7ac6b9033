import LanChatCore
import NIOCore
import Synchronization

/// The daemon's handle on one established session: send application messages, close it.
/// Identity (===) distinguishes sessions with the same peer (a reconnect, a simultaneous
/// dial). Safe to use from any task.
///
/// Two ways to send: `send` for MSGs waits while the peer reads slowly (the outbound buffer
/// is capped, PROTOCOL.md §4.5); `sendControl` for HELLO, ACK, REJECT and the like never
/// waits, so that two peers busy sending to each other keep acknowledging (and therefore
/// keep reading) instead of deadlocking on full buffers.
public final class SessionHandle: Sendable, Hashable, CustomStringConvertible {
    public let info: SessionInfo
    public let establishedAt: ContinuousClock.Instant
    private let outbound: NIOAsyncChannelOutboundWriter<SessionCommand>
    private let channel: any Channel
    private let localCloseReason = Mutex<CloseReason?>(nil)

    init(
        info: SessionInfo, outbound: NIOAsyncChannelOutboundWriter<SessionCommand>,
        channel: any Channel
    ) {
        self.info = info
        self.outbound = outbound
        self.channel = channel
        self.establishedAt = .now
    }

    public var remoteKey: PeerKey { info.remoteKey }

    /// The static key of the side that dialled (for the simultaneous-dial rule).
    public func initiatorKey(ownKey: PeerKey) -> PeerKey {
        info.role == .initiator ? ownKey : info.remoteKey
    }

    /// Encrypts and writes the messages, in order, in one flush.
    public func send(_ messages: [AppMessage]) async throws {
        guard !messages.isEmpty else { return }
        try await outbound.write(.send(messages))
    }

    /// Writes small protocol messages at once, ahead of any MSGs waiting for buffer space.
    public func sendControl(_ messages: [AppMessage]) {
        guard !messages.isEmpty else { return }
        channel.writeAndFlush(SessionCommand.send(messages), promise: nil)
    }

    /// How long CLOSE may wait to leave. It is sealed after everything already written, so a
    /// peer that stopped reading (a busy store, a full window) would hold it, and with it a
    /// clean stop, for as long as it pleases.
    public static let closeGrace: TimeAmount = .milliseconds(250)

    /// Sends CLOSE(reason) and closes the connection; returns once it is closed, at the latest
    /// `closeGrace` later (then without CLOSE: the peer sees the connection end). Idempotent.
    public func close(_ reason: CloseReason) async {
        let first = localCloseReason.withLock { current in
            guard current == nil else { return false }
            current = reason
            return true
        }
        guard first else { return }
        let closed = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(SessionCommand.close(reason), promise: closed)
        let channel = self.channel
        let deadline = channel.eventLoop.scheduleTask(in: Self.closeGrace) {
            channel.close(promise: nil)
        }
        try? await closed.futureResult.get()
        deadline.cancel()
    }

    /// The reason given to `close`, if the daemon closed it.
    public var closedLocallyWith: CloseReason? { localCloseReason.withLock { $0 } }

    public var description: String {
        "session \(info.sessionTag) (\(info.role == .initiator ? "outbound" : "inbound"))"
    }

    public static func == (lhs: SessionHandle, rhs: SessionHandle) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// How a session ended.
public enum SessionEnd: Sendable, CustomStringConvertible {
    /// The peer sent CLOSE.
    case closedByPeer(CloseReason)
    /// We sent CLOSE (`SessionHandle.close`).
    case closedLocally(CloseReason)
    case failed(TransportError)
    /// Our side stopped (task cancelled at shutdown) before a CLOSE could be sent.
    case abandoned

    public var description: String {
        switch self {
        case .closedByPeer(let reason): "closed by the peer (\(reason))"
        case .closedLocally(let reason): "closed (\(reason))"
        case .failed(let error): error.description
        case .abandoned: "dropped as the daemon stopped"
        }
    }
}

/// What a connection is, before it is authenticated.
public struct ConnectionInfo: Sendable {
    public var role: HandshakeRole
    /// Where we dialled, or where the inbound connection came from.
    public var remoteAddress: Endpoint?
    /// The key the dialler expects (pinned contact or discovery record), if any.
    public var expectation: IdentityPolicy.Expectation?
}

/// The daemon's side of every connection. Calls for one connection come from one task, in
/// order, and each is awaited before the connection reads more: `received` applying
/// backpressure is what bounds memory when the store is slow.
public protocol SessionDelegate: Sendable {
    /// The identity decision of PROTOCOL.md §3.8 for a proven key.
    func authorize(_ remote: PeerKey, connection: ConnectionInfo) async
        -> Result<Void, IdentityPolicy.Rejection>
    func sessionOpened(_ session: SessionHandle) async
    func session(_ session: SessionHandle, received messages: [AppMessage]) async
    func sessionClosed(_ session: SessionHandle, end: SessionEnd) async
}
