import LanChatCore

/// A completed handshake: the proven peer, the session facts and both stream states.
/// Move-only; `split` consumes it into the two halves that the connection's reader and writer
/// own. Holds no handshake secret (those were wiped at Split()).
public struct EstablishedChannel: ~Copyable, @unchecked Sendable {
    public let remoteKey: PeerKey
    /// The final handshake hash `h`: the session id. Public; log `sessionIDPrefix` only.
    public let sessionID: [UInt8]
    public let remoteMaxVersion: UInt8
    /// The negotiated capabilities (ours AND the peer's).
    public let capabilities: UInt64
    private let outgoing: OutgoingStream
    private let incoming: IncomingStream
    private let reader: FrameReader
    private let leftover: [UInt8]

    init(
        outcome: HandshakeOutcome, outgoing: OutgoingStream, incoming: IncomingStream,
        reader: consuming FrameReader
    ) {
        remoteKey = outcome.remoteKey
        sessionID = outcome.sessionID
        remoteMaxVersion = outcome.remoteMaxVersion
        capabilities = outcome.capabilities
        leftover = outcome.leftover
        self.outgoing = outgoing
        self.incoming = incoming
        self.reader = reader
    }

    /// The first 8 hex digits of the session id, for log lines (§8).
    public var sessionIDPrefix: String {
        sessionID.prefix(4).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    /// Hands the outgoing state to a `FrameSealer` and the incoming state to a `FrameOpener`.
    /// The opener already holds any bytes that arrived after the peer's header frame; they are
    /// decrypted on its first `receive` (call it with no bytes to drain them at once).
    public consuming func split() -> ChannelHalves {
        ChannelHalves(
            sealer: FrameSealer(stream: outgoing),
            opener: FrameOpener(stream: incoming, reader: reader, held: leftover))
    }
}

/// The two move-only halves of a channel. Take them apart with
/// `let halves = channel.split(); var sealer = halves.sealer; var opener = halves.opener`.
@frozen public struct ChannelHalves: ~Copyable, @unchecked Sendable {
    public var sealer: FrameSealer
    public var opener: FrameOpener
}

/// What to do after feeding a `ChannelHandshake`. Move-only because `.established` carries the
/// channel; consume it with `switch consume step { … }`.
public enum HandshakeStep: ~Copyable {
    /// Write `send` (may be empty) and feed more bytes when they arrive.
    case needMore(send: [UInt8])
    /// Write `send`, decide whether `remote` may proceed (PROTOCOL.md §3.8), then call
    /// `resolveIdentity`. Initiator: before msg3 (nothing about us is revealed yet);
    /// responder: after msg3.
    case identityCheck(remote: PeerKey, send: [UInt8])
    /// Write `send` (our header frame, perhaps msg3); the channel is ready.
    case established(EstablishedChannel, send: [UInt8])
    /// Write `send`, then close. The state is already wiped. `send` is usually empty; it may
    /// be a VERSION_REJECT, or public handshake bytes (msg2, our stream header) produced
    /// earlier in the same call before the failure was found.
    case failed(HandshakeFailure, send: [UInt8])
}
