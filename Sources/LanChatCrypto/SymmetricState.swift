import LanChatCore

/// Noise's SymmetricState (rev. 34 §5.2) with its CipherState folded in: the public transcript
/// hash `h`, and the secret chaining key `ck` and cipher key `k` in sodium memory.
/// Owned by one `NoiseHandshakeState`; not shared.
final class SymmetricState {
    /// "Noise_XX_25519_ChaChaPoly_SHA256" is exactly 32 bytes, so h = ck = the name, unhashed.
    static let protocolName = Array("Noise_XX_25519_ChaChaPoly_SHA256".utf8)

    private(set) var h: [UInt8]
    private let chainingKey: SecretBuffer
    private let cipherKey: SecretBuffer
    private var hasKey = false
    private var nonce: UInt64 = 0

    /// `InitializeSymmetric(protocol_name)`.
    init(protocolName: [UInt8] = SymmetricState.protocolName) throws(SodiumError) {
        h =
            protocolName.count <= NoisePrimitives.hashLength
            ? protocolName
                + [UInt8](repeating: 0, count: NoisePrimitives.hashLength - protocolName.count)
            : NoisePrimitives.sha256(protocolName)
        chainingKey = try SecretBuffer(copying: h)
        cipherKey = try SecretBuffer(count: NoisePrimitives.keyLength)
    }

    func mixHash(_ data: some Collection<UInt8>) {
        h = NoisePrimitives.sha256(h + data)
    }

    /// `MixKey(ikm)`: (ck, k) = HKDF(ck, ikm); n = 0.
    func mixKey(_ inputKeyMaterial: SecretBuffer) throws(HandshakeFailure) {
        do {
            try NoisePrimitives.hkdf(
                chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial.raw,
                output1: chainingKey, output2: cipherKey)
        } catch {
            throw HandshakeFailure(.cryptoFailure(error.description))
        }
        hasKey = true
        nonce = 0
    }

    /// `EncryptAndHash`: with no key yet it returns the plaintext but still runs MixHash
    /// (the empty msg1 payload's MixHash("") is a classic interop bug).
    func encryptAndHash(_ plaintext: [UInt8]) -> [UInt8] {
        guard hasKey else {
            mixHash(plaintext)
            return plaintext
        }
        let ciphertext = NoisePrimitives.encrypt(
            key: cipherKey, nonce: nonce, ad: h, plaintext: plaintext)
        nonce += 1
        mixHash(ciphertext)
        return ciphertext
    }

    func decryptAndHash(_ ciphertext: [UInt8]) throws(HandshakeFailure) -> [UInt8] {
        guard hasKey else {
            mixHash(ciphertext)
            return ciphertext
        }
        let plaintext = try NoisePrimitives.decrypt(
            key: cipherKey, nonce: nonce, ad: h, ciphertext: ciphertext)
        nonce += 1
        mixHash(ciphertext)
        return plaintext
    }

    /// `Split()`: (k1, k2) = HKDF(ck, "") into the caller's buffers (k1 = initiator→responder).
    func split(initiatorToResponder: SecretBuffer, responderToInitiator: SecretBuffer)
        throws(HandshakeFailure)
    {
        do {
            try NoisePrimitives.hkdf(
                chainingKey: chainingKey,
                inputKeyMaterial: UnsafeRawBufferPointer(start: nil, count: 0),
                output1: initiatorToResponder, output2: responderToInitiator)
        } catch {
            throw HandshakeFailure(.cryptoFailure(error.description))
        }
    }

    /// Wipes ck and k (step 8 of §3.5); `h` is public and stays for the session id.
    func wipe() {
        chainingKey.wipe()
        cipherKey.wipe()
        hasKey = false
    }
}
