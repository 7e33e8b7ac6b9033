import LanChatCore
import LanChatFuzzSupport

/// `NoiseHandshakeOperations` with the message layouts of XX but no cryptography: keys travel
/// in clear, each "AEAD" is the plaintext followed by a 16-byte tag that fails only when its
/// first byte is 0xFF. This is the test hook PROTOCOL.md §7.5 asks for: it lets the fuzzer
/// reach the payload parser, the version rules and the identity decision, which real
/// encryption would hide behind a MAC it cannot forge.
///
/// Owned by one machine for one input, on libFuzzer's thread.
final class TransparentNoise: NoiseHandshakeOperations {
    static let ourStatic = [UInt8](repeating: 0x09, count: 32)
    static let ourEphemeral = [UInt8](repeating: 0x05, count: 32)
    static let header = [UInt8](repeating: 0xAB, count: 24)
    static let tagLength = 16

    let localStaticKey: PeerKey
    private(set) var prologue: [UInt8]?
    /// The decrypted payload of msg2 or msg3, for the harness to check the machine's verdict.
    private(set) var receivedPayload: [UInt8]?
    private(set) var wiped = false

    init() {
        guard let key = PeerKey(bytes: Self.ourStatic) else {
            FuzzFailure.report("the harness's own static key is not canonical")
        }
        localStaticKey = key
    }

    var handshakeHash: [UInt8] { prologue.map { $0 + [0x48] } ?? [] }

    func initialize(prologue: [UInt8]) throws(HandshakeFailure) { self.prologue = prologue }

    func writeMessage1(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        Self.ourEphemeral + payload
    }

    func readMessage1(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> [UInt8] {
        try checkEphemeral(message.prefix(32))
        return Array(message.dropFirst(32))
    }

    func writeMessage2(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        Self.ourEphemeral + sealed(Self.ourStatic) + sealed(payload)
    }

    func readMessage2(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    ) {
        try checkEphemeral(message.prefix(32))
        return try staticAndPayload(message.dropFirst(32))
    }

    func writeMessage3(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        sealed(Self.ourStatic) + sealed(payload)
    }

    func readMessage3(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    ) {
        try staticAndPayload(message)
    }

    func isLocalStaticKey(_ key: PeerKey) -> Bool { key == localStaticKey }

    func startTransport() throws(HandshakeFailure) -> [UInt8] { Self.header }

    func acceptRemoteHeader(_ header: ArraySlice<UInt8>) throws(HandshakeFailure) {
        guard header.count == 24, header.first != 0xFF else {
            throw HandshakeFailure(.badStreamHeader)
        }
    }

    func wipe() { wiped = true }

    private func sealed(_ plaintext: [UInt8]) -> [UInt8] {
        plaintext + [UInt8](repeating: 0, count: Self.tagLength)
    }

    private func opened(_ box: ArraySlice<UInt8>) throws(HandshakeFailure) -> [UInt8] {
        guard box.count >= Self.tagLength, box.suffix(Self.tagLength).first != 0xFF else {
            throw HandshakeFailure(.decryptionFailed)
        }
        return Array(box.dropLast(Self.tagLength))
    }

    private func checkEphemeral(_ key: ArraySlice<UInt8>) throws(HandshakeFailure) {
        guard key.count == 32, PeerKey.isCanonical(Array(key)) else {
            throw HandshakeFailure(.nonCanonicalKey)
        }
        guard key.contains(where: { $0 != 0 }) else { throw HandshakeFailure(.lowOrderKey) }
    }

    private func staticAndPayload(_ bytes: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    ) {
        let key = try opened(bytes.prefix(32 + Self.tagLength))
        guard let remote = PeerKey(bytes: key) else { throw HandshakeFailure(.nonCanonicalKey) }
        let payload = try opened(bytes.dropFirst(32 + Self.tagLength))
        receivedPayload = payload
        return (remote, payload)
    }
}
