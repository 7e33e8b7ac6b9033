import LanChatCore

/// A `NoiseHandshakeOperations` without any cryptography: the message layouts of XX with
/// plaintext keys and all-zero "tags". It is the hook that lets the handshake parsers and the
/// state machine run (and be fuzzed) without AEAD; a non-zero tag stands for a failed AEAD.
final class PlaintextNoise: NoiseHandshakeOperations {
    let localStaticKey: PeerKey
    let ephemeral: [UInt8]
    var prologue: [UInt8]?
    var remoteHeader: [UInt8]?
    var wiped = false
    static let header = [UInt8](repeating: 0xAB, count: 24)

    init(staticByte: UInt8, ephemeralByte: UInt8) throws {
        guard let key = PeerKey(bytes: [UInt8](repeating: staticByte, count: 32)) else {
            throw HandshakeFailure(.misuse("test key not canonical"))
        }
        localStaticKey = key
        ephemeral = [UInt8](repeating: ephemeralByte, count: 32)
    }

    var handshakeHash: [UInt8] { prologue.map { $0 + [0x5E] } ?? [] }

    func initialize(prologue: [UInt8]) throws(HandshakeFailure) { self.prologue = prologue }

    func writeMessage1(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] { ephemeral + payload }

    func readMessage1(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> [UInt8] {
        try checkKey(message.prefix(32))
        return Array(message.dropFirst(32))
    }

    func writeMessage2(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        ephemeral + sealed(localStaticKey.bytes) + sealed(payload)
    }

    func readMessage2(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    ) {
        let bytes = Array(message)
        try checkKey(bytes.prefix(32)[...])
        return try readStaticAndPayload(bytes[32...])
    }

    func writeMessage3(payload: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        sealed(localStaticKey.bytes) + sealed(payload)
    }

    func readMessage3(_ message: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    ) {
        try readStaticAndPayload(message)
    }

    func isLocalStaticKey(_ key: PeerKey) -> Bool { key == localStaticKey }

    func startTransport() throws(HandshakeFailure) -> [UInt8] { Self.header }

    func acceptRemoteHeader(_ header: ArraySlice<UInt8>) throws(HandshakeFailure) {
        remoteHeader = Array(header)
    }

    func wipe() { wiped = true }

    private func sealed(_ plaintext: [UInt8]) -> [UInt8] {
        plaintext + [UInt8](repeating: 0, count: 16)
    }

    private func open(_ box: ArraySlice<UInt8>) throws(HandshakeFailure) -> [UInt8] {
        guard box.count >= 16, box.suffix(16).allSatisfy({ $0 == 0 }) else {
            throw HandshakeFailure(.decryptionFailed)
        }
        return Array(box.dropLast(16))
    }

    private func checkKey(_ key: ArraySlice<UInt8>) throws(HandshakeFailure) {
        guard PeerKey.isCanonical(Array(key)) else { throw HandshakeFailure(.nonCanonicalKey) }
    }

    private func readStaticAndPayload(_ bytes: ArraySlice<UInt8>) throws(HandshakeFailure) -> (
        remoteStatic: PeerKey, payload: [UInt8]
    ) {
        guard bytes.count >= 48 else { throw HandshakeFailure(.decryptionFailed) }
        let key = try open(bytes.prefix(48))
        guard let remote = PeerKey(bytes: key) else { throw HandshakeFailure(.nonCanonicalKey) }
        return (remote, try open(bytes.dropFirst(48)))
    }
}

/// Feeds `bytes` to a machine in chunks of `chunk` and returns every step.
func feed(
    _ machine: inout HandshakeMachine<PlaintextNoise>, _ bytes: [UInt8], chunk: Int = .max
) -> [HandshakeMachineStep] {
    var steps: [HandshakeMachineStep] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + max(chunk, 1))
        steps.append(bytes[start..<end].withUnsafeBytes { machine.receive($0) })
        start = end
    }
    return steps
}

extension HandshakeMachineStep {
    var sent: [UInt8] {
        switch self {
        case .needMore(let send), .identityCheck(_, let send), .established(_, let send),
            .failed(_, let send):
            send
        }
    }

    var failure: HandshakeFailure? {
        if case .failed(let failure, _) = self { return failure }
        return nil
    }
}

/// Payload bytes: format, max_ver, reserved, capabilities, then raw extension bytes.
func payloadBytes(
    format: UInt8 = 1, maxVersion: UInt8 = 1, capabilities: UInt64 = 0, tail: [UInt8] = []
)
    -> [UInt8]
{
    var out: [UInt8] = [format, maxVersion, 0, 0]
    for shift in stride(from: 56, through: 0, by: -8) {
        out.append(UInt8(truncatingIfNeeded: capabilities >> UInt64(shift)))
    }
    return out + tail
}
