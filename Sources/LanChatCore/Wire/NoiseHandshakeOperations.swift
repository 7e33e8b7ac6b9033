/// The Noise `XX` operations the handshake machine drives, injected so the machine stays pure:
/// LanChatCrypto implements them on libsodium, and tests implement them without AEAD so the
/// parsers and the state machine can be reached (and fuzzed) without crypto or sockets.
///
/// Each method runs one Noise message (PROTOCOL.md §3.5) including its MixHash/MixKey steps
/// and throws the matching `HandshakeFailure` (decryption, non-canonical or low-order key). The
/// conforming object owns the handshake secrets; it is used by one machine, from one task.
public protocol NoiseHandshakeOperations: AnyObject {
    /// Our static public key, for the self-connection check.
    var localStaticKey: PeerKey { get }
    /// `h`, the transcript hash: the session id once the handshake is complete.
    var handshakeHash: [UInt8] { get }

    /// `Initialize(XX, initiator?, prologue, s)`: h = ck = protocol name, then MixHash(prologue).
    func initialize(prologue: [UInt8]) throws(HandshakeFailure)
    /// Initiator: `-> e` with payload; returns the message.
    func writeMessage1(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8]
    /// Responder: reads `e` (checking it is canonical); returns the payload.
    func readMessage1(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> [UInt8]
    /// Responder: `<- e, ee, s, es` with payload.
    func writeMessage2(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8]
    /// Initiator: reads msg2; returns the proven responder key and the decrypted payload.
    func readMessage2(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    )
    /// Initiator: `-> s, se` with payload.
    func writeMessage3(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8]
    /// Responder: reads msg3; returns the proven initiator key and the decrypted payload.
    func readMessage3(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    )
    /// Constant-time comparison with our static key.
    func isLocalStaticKey(_ key: PeerKey) -> Bool

    /// `Split()`, then opens our outgoing stream; returns its 24-byte header.
    func startTransport() throws(HandshakeFailure) -> [UInt8]
    /// Opens the incoming stream from the peer's 24-byte header.
    func acceptRemoteHeader(_ header: ArraySlice<UInt8>) throws(HandshakeFailure)
    /// Wipes every handshake secret now (on failure); stream states survive a success.
    func wipe()
}

/// Which end of the TCP connection we are: the initiator opened it.
public enum HandshakeRole: Sendable, Equatable {
    case initiator
    case responder
}

/// What we announce and accept. `current` is LCHT/1; the package-level knobs let tests play a
/// peer that supports more versions (the downgrade tests of §7.1 item 10).
public struct HandshakeConfiguration: Sendable {
    /// Our highest version: the preamble's max_ver (initiator) and p2.max_ver (responder).
    public var maxVersion: UInt8
    /// Our capability bits; the negotiated set is the AND of both sides.
    public var capabilities: UInt64
    public var extensions: [HandshakePayload.Extension]
    /// The version the initiator speaks, and the versions a responder accepts.
    package var wireVersion: UInt8 = WireLimits.wireVersion
    package var supportedWireVersions: ClosedRange<UInt8> =
        WireLimits.wireVersion...WireLimits.wireVersion

    public init(
        maxVersion: UInt8 = WireLimits.maxVersion, capabilities: UInt64 = 0,
        extensions: [HandshakePayload.Extension] = []
    ) {
        self.maxVersion = maxVersion
        self.capabilities = capabilities
        self.extensions = extensions
    }

    public static let current = HandshakeConfiguration()

    /// `current` with our capability bits (the transport announces `Capabilities.supported`).
    public static func announcing(_ capabilities: UInt64) -> HandshakeConfiguration {
        HandshakeConfiguration(capabilities: capabilities)
    }
}

/// The facts of a completed handshake (all public: no secret here).
public struct HandshakeOutcome: Equatable, Sendable {
    public let remoteKey: PeerKey
    /// The final handshake hash `h`: the session id (log only its first 8 hex digits).
    public let sessionID: [UInt8]
    public let remoteMaxVersion: UInt8
    /// The negotiated capabilities: ours AND the peer's.
    public let capabilities: UInt64
    /// Bytes that arrived after the peer's header frame: the start of the transport stream.
    public let leftover: [UInt8]
}

/// What the caller must do after feeding the machine an event.
public enum HandshakeMachineStep: Equatable, Sendable {
    /// Write `send` (may be empty) and feed more bytes when they arrive.
    case needMore(send: [UInt8])
    /// Write `send`, then decide whether `remote` may proceed (§3.8) and call
    /// `resolveIdentity`. Initiator: before msg3; responder: after msg3.
    case identityCheck(remote: PeerKey, send: [UInt8])
    /// Write `send`; the channel is ready.
    case established(HandshakeOutcome, send: [UInt8])
    /// Write `send` (usually empty; a VERSION_REJECT at most), then close.
    case failed(HandshakeFailure, send: [UInt8])
}
