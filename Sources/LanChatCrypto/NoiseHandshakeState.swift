internal import CSodium
import LanChatCore

/// Noise `XX` (`-> e; <- e, ee, s, es; -> s, se`) on libsodium: the implementation of
/// `NoiseHandshakeOperations` that `ChannelHandshake` injects into the pure state machine.
///
/// Owns every handshake secret (ephemeral key, DH output, ck, k, split keys) in sodium memory
/// and the two stream states until `ChannelHandshake` moves them into the channel. One instance
/// per connection, driven by one machine from one task.
package final class NoiseHandshakeState: NoiseHandshakeOperations {
    let isInitiator: Bool
    let identity: IdentityKeyPair
    /// Test hook: a fixed ephemeral key (known-answer vectors only).
    private let fixedEphemeral: IdentityKeyPair?

    private var symmetric: SymmetricState?
    private var ephemeral: SecretBuffer?
    private var ephemeralPublic: [UInt8] = []
    private var remoteEphemeral: [UInt8] = []
    private var sharedSecret: SecretBuffer?
    /// The peer's direction key, kept from Split() until its header arrives.
    private var incomingKey: SecretBuffer?
    /// Test hook: the bytes sent as our static key (an impostor claiming another key, or a
    /// low-order or non-canonical `s`); the DH still uses our real secret key.
    package var staticPublicOverrideForTesting: [UInt8]?
    private(set) var outgoing: OutgoingStream?
    private(set) var incoming: IncomingStream?

    package init(
        isInitiator: Bool, identity: IdentityKeyPair, fixedEphemeral: IdentityKeyPair? = nil
    ) {
        self.isInitiator = isInitiator
        self.identity = identity
        self.fixedEphemeral = fixedEphemeral
    }

    package var localStaticKey: PeerKey { identity.publicKey }
    package var handshakeHash: [UInt8] { symmetric?.h ?? [] }

    package func isLocalStaticKey(_ key: PeerKey) -> Bool {
        key.bytes.withUnsafeBytes { identity.publicKey.bytes.withUnsafeBytes(sodiumEquals($0)) }
    }

    package func initialize(prologue: [UInt8]) throws(HandshakeFailure) {
        do {
            let state = try SymmetricState()
            state.mixHash(prologue)
            symmetric = state
            sharedSecret = try SecretBuffer(count: NoisePrimitives.keyLength)
        } catch {
            throw HandshakeFailure(.cryptoFailure(error.description))
        }
    }

    // MARK: Messages (PROTOCOL.md §3.5)

    package func writeMessage1(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        let state = try ready()
        let e = try generateEphemeral(state)
        return e + state.encryptAndHash(payload)
    }

    package func readMessage1(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> [UInt8] {
        let state = try ready()
        guard message.count >= 32 else { throw HandshakeFailure(.decryptionFailed) }
        remoteEphemeral = try canonical(message.prefix(32))
        state.mixHash(remoteEphemeral)
        return try state.decryptAndHash(Array(message.dropFirst(32)))
    }

    package func writeMessage2(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        let state = try ready()
        var out = try generateEphemeral(state)
        try mix(state, ephemeralWith: remoteEphemeral)  // ee
        out += state.encryptAndHash(staticPublicBytes)  // s
        try mix(state, secret: identity.secret, with: remoteEphemeral)  // es
        return out + state.encryptAndHash(payload)
    }

    package func readMessage2(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    ) {
        let state = try ready()
        guard message.count >= 32 + 48 + 16 else { throw HandshakeFailure(.decryptionFailed) }
        let bytes = Array(message)
        remoteEphemeral = try canonical(bytes[0..<32])
        state.mixHash(remoteEphemeral)
        try mix(state, ephemeralWith: remoteEphemeral)  // ee
        let remoteStatic = try peerKey(state.decryptAndHash(Array(bytes[32..<80])))  // s
        try mix(state, ephemeralWith: remoteStatic.bytes)  // es
        return (remoteStatic, try state.decryptAndHash(Array(bytes[80...])))
    }

    package func writeMessage3(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        let state = try ready()
        let out = state.encryptAndHash(staticPublicBytes)  // s
        try mix(state, secret: identity.secret, with: remoteEphemeral)  // se
        return out + state.encryptAndHash(payload)
    }

    package func readMessage3(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    ) {
        let state = try ready()
        guard message.count >= 48 + 16 else { throw HandshakeFailure(.decryptionFailed) }
        let bytes = Array(message)
        let remoteStatic = try peerKey(state.decryptAndHash(Array(bytes[0..<48])))  // s
        try mix(state, ephemeralWith: remoteStatic.bytes)  // se
        return (remoteStatic, try state.decryptAndHash(Array(bytes[48...])))
    }

    // MARK: Transport set-up (PROTOCOL.md §4.1)

    package func startTransport() throws(HandshakeFailure) -> [UInt8] {
        let state = try ready()
        do {
            let initiatorToResponder = try SecretBuffer(count: NoisePrimitives.keyLength)
            let responderToInitiator = try SecretBuffer(count: NoisePrimitives.keyLength)
            try state.split(
                initiatorToResponder: initiatorToResponder,
                responderToInitiator: responderToInitiator)
            let (ours, theirs) =
                isInitiator
                ? (initiatorToResponder, responderToInitiator)
                : (responderToInitiator, initiatorToResponder)
            let stream = try OutgoingStream(key: ours)
            ours.wipe()
            outgoing = stream
            incomingKey = theirs
            wipeHandshakeSecrets()
            return stream.header
        } catch let failure as HandshakeFailure {
            throw failure
        } catch {
            throw HandshakeFailure(.cryptoFailure("\(error)"))
        }
    }

    package func acceptRemoteHeader(_ header: ArraySlice<UInt8>) throws(HandshakeFailure) {
        guard let key = incomingKey else { throw HandshakeFailure(.misuse("header before split")) }
        defer {
            key.wipe()
            incomingKey = nil
        }
        incoming = try IncomingStream(key: key, header: header)
    }

    package func wipe() {
        wipeHandshakeSecrets()
        incomingKey = nil
        outgoing = nil
        incoming = nil
    }

    /// Moves the two stream states out (once, after the handshake completed).
    func takeStreams() -> (OutgoingStream, IncomingStream)? {
        guard let outgoing, let incoming else { return nil }
        self.outgoing = nil
        self.incoming = nil
        return (outgoing, incoming)
    }

    /// Test hook: Noise ENCRYPT(k, n, ad = "", p) with a known key (the public vector's
    /// transport messages).
    package static func encryptForTesting(key: [UInt8], nonce: UInt64, plaintext: [UInt8]) throws
        -> [UInt8]
    {
        NoisePrimitives.encrypt(
            key: try SecretBuffer(copying: key), nonce: nonce, ad: [], plaintext: plaintext)
    }

    /// Test hook: Split() keys as arrays for the known-answer tests (k_i2r, k_r2i).
    package func splitKeysForTesting() throws -> (
        initiatorToResponder: [UInt8], responderToInitiator: [UInt8]
    ) {
        let state = try ready()
        let first = try SecretBuffer(count: 32)
        let second = try SecretBuffer(count: 32)
        try state.split(initiatorToResponder: first, responderToInitiator: second)
        return (first.exposedForTesting, second.exposedForTesting)
    }

    // MARK: Helpers

    private var staticPublicBytes: [UInt8] {
        staticPublicOverrideForTesting ?? identity.publicKey.bytes
    }

    private func ready() throws(HandshakeFailure) -> SymmetricState {
        guard let symmetric else { throw HandshakeFailure(.misuse("Noise state not initialised")) }
        return symmetric
    }

    private func generateEphemeral(_ state: SymmetricState) throws(HandshakeFailure) -> [UInt8] {
        do {
            let secret = try SecretBuffer(count: NoisePrimitives.keyLength)
            if let fixedEphemeral {
                secret.copy(from: fixedEphemeral.secret)
            } else {
                randombytes_buf(secret.pointer, secret.count)
            }
            guard let pk = NoisePrimitives.publicKey(for: secret) else {
                throw HandshakeFailure(.cryptoFailure("crypto_scalarmult_base"))
            }
            ephemeral = secret
            ephemeralPublic = pk
            state.mixHash(pk)
            return pk
        } catch let failure as HandshakeFailure {
            throw failure
        } catch {
            throw HandshakeFailure(.cryptoFailure("\(error)"))
        }
    }

    /// MixKey(DH(e, remote)).
    private func mix(_ state: SymmetricState, ephemeralWith remote: [UInt8])
        throws(HandshakeFailure)
    {
        guard let ephemeral else { throw HandshakeFailure(.misuse("no ephemeral key")) }
        try mix(state, secret: ephemeral, with: remote)
    }

    /// MixKey(DH(secret, remote)); the DH output is wiped right after.
    private func mix(_ state: SymmetricState, secret: SecretBuffer, with remote: [UInt8])
        throws(HandshakeFailure)
    {
        guard let sharedSecret else { throw HandshakeFailure(.misuse("no DH buffer")) }
        defer { sharedSecret.wipe() }
        try NoisePrimitives.dh(secret: secret, publicKey: remote, into: sharedSecret)
        try state.mixKey(sharedSecret)
    }

    private func canonical(_ key: ArraySlice<UInt8>) throws(HandshakeFailure) -> [UInt8] {
        let bytes = Array(key)
        guard PeerKey.isCanonical(bytes) else { throw HandshakeFailure(.nonCanonicalKey) }
        return bytes
    }

    private func peerKey(_ bytes: [UInt8]) throws(HandshakeFailure) -> PeerKey {
        guard let key = PeerKey(bytes: bytes) else { throw HandshakeFailure(.nonCanonicalKey) }
        return key
    }

    /// Step 8 of §3.5: e.sk, ck, k and the DH buffer. `h` stays (it is the session id).
    private func wipeHandshakeSecrets() {
        symmetric?.wipe()
        ephemeral = nil
        sharedSecret = nil
    }
}

/// `sodium_memcmp` of two equally long buffers, as a curried helper for nested closures.
private func sodiumEquals(_ lhs: UnsafeRawBufferPointer) -> (UnsafeRawBufferPointer) -> Bool {
    { rhs in
        guard lhs.count == rhs.count, let a = lhs.baseAddress, let b = rhs.baseAddress else {
            return false
        }
        return sodium_memcmp(a, b, lhs.count) == 0
    }
}
