import LanChatCore
import NIOCore

/// What a connection's channel handler tells the async side, in order.
enum SessionEvent: Sendable {
    /// The handshake proved `remote`; answer with `SessionCommand.resolveIdentity`.
    case identityCheck(PeerKey)
    case established(SessionInfo)
    /// Every application message decoded from one read: one batch, so the daemon commits
    /// them in one transaction (group commit).
    case messages([AppMessage])
    /// The peer sent CLOSE (TAG_FINAL): a clean end.
    case closedByPeer(CloseReason)
}

/// What the async side asks a connection's channel handler to do.
enum SessionCommand: Sendable {
    case resolveIdentity(accept: Bool)
    case send([AppMessage])
    /// Send CLOSE with this reason, then close the connection.
    case close(CloseReason)
}

/// The public facts of an established session. No secrets.
public struct SessionInfo: Sendable, Hashable {
    public let remoteKey: PeerKey
    /// The handshake hash `h`, the session id (PROTOCOL.md §3.2).
    public let sessionID: [UInt8]
    /// Which side we were.
    public let role: HandshakeRole
    /// The TCP peer address, for `addresses` and logs.
    public let remoteAddress: Endpoint?
    /// The negotiated capability bits (ours AND the peer's, PROTOCOL.md §3.7).
    public var capabilities: UInt64 = 0

    /// The same facts with another remote address: an outbound session remembers the
    /// address it dialled (with its IPv6 scope), which the socket's own view drops.
    func with(remoteAddress: Endpoint?) -> SessionInfo {
        var info = SessionInfo(
            remoteKey: remoteKey, sessionID: sessionID, role: role,
            remoteAddress: remoteAddress ?? self.remoteAddress)
        info.capabilities = capabilities
        return info
    }

    /// First 8 hex digits of the session id: what logs show.
    public var sessionTag: String {
        sessionID.prefix(4).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}

extension Endpoint {
    /// The address NIO reports for a TCP peer, as an `Endpoint`. A dual-stack listener sees
    /// an IPv4 peer as `::ffff:10.0.0.5`: it is taken as `10.0.0.5`, the address that peer
    /// is dialled at and listed with (found by review: dialling back a refused peer compared
    /// the two forms, and never matched over IPv4).
    init?(_ address: SocketAddress?) {
        guard let address, let ip = address.ipAddress, let port = address.port,
            let port16 = UInt16(exactly: port)
        else { return nil }
        let host =
            ArrivalScope.Target(address).map { $0.bytes.count == 4 ? $0.description : ip } ?? ip
        self.init(host: host, port: port16)
    }
}
