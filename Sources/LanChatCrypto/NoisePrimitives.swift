internal import CSodium
import LanChatCore

/// The Noise `25519_ChaChaPoly_SHA256` functions on exactly the libsodium 1.0.18 calls of
/// PROTOCOL.md §3.1. Stateless; secrets go in and out through `SecretBuffer`s.
enum NoisePrimitives {
    static let hashLength = 32
    static let keyLength = 32

    /// DH(sk, pk) into `output`. `crypto_scalarmult` returns −1 for a low-order point (an
    /// all-zero result): that is a handshake failure, never a zero key.
    static func dh(secret: SecretBuffer, publicKey: [UInt8], into output: SecretBuffer)
        throws(HandshakeFailure)
    {
        guard publicKey.count == keyLength, PeerKey.isCanonical(publicKey) else {
            throw HandshakeFailure(.nonCanonicalKey)
        }
        let status = crypto_scalarmult(output.bytes, secret.bytes, publicKey)
        guard status == 0 else {
            output.wipe()
            throw HandshakeFailure(.lowOrderKey)
        }
    }

    /// The public key for a secret key (`crypto_scalarmult_base`).
    static func publicKey(for secret: SecretBuffer) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: keyLength)
        let status = crypto_scalarmult_base(&out, secret.bytes)
        return status == 0 ? out : nil
    }

    static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: hashLength)
        _ = crypto_hash_sha256(&out, data, UInt64(data.count))
        return out
    }

    /// HMAC-SHA256 with a 32-byte key from secret memory, into secret memory.
    static func hmac(key: SecretBuffer, data: UnsafeRawBufferPointer, into output: SecretBuffer) {
        _ = crypto_auth_hmacsha256(
            output.bytes, data.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(data.count),
            key.bytes)
    }

    /// Noise HKDF with two outputs (§3.1): t = HMAC(ck, ikm); o1 = HMAC(t, 0x01);
    /// o2 = HMAC(t, o1 ‖ 0x02). `ikm` may alias neither output. Temporaries are wiped.
    static func hkdf(
        chainingKey: SecretBuffer, inputKeyMaterial: UnsafeRawBufferPointer,
        output1: SecretBuffer, output2: SecretBuffer
    ) throws(SodiumError) {
        let temporary = try SecretBuffer(count: keyLength)
        let block = try SecretBuffer(count: keyLength + 1)
        hmac(key: chainingKey, data: inputKeyMaterial, into: temporary)
        block.bytes[0] = 0x01
        hmac(
            key: temporary, data: UnsafeRawBufferPointer(start: block.pointer, count: 1),
            into: output1)
        block.copy(from: output1)
        block.bytes[keyLength] = 0x02
        hmac(key: temporary, data: block.raw, into: output2)
        temporary.wipe()
        block.wipe()
    }

    /// The ChaChaPoly IETF nonce of Noise §12.3: 4 zero bytes ‖ n as little-endian u64.
    static func nonce(_ n: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * UInt64($0))) }
    }

    static func encrypt(key: SecretBuffer, nonce n: UInt64, ad: [UInt8], plaintext: [UInt8])
        -> [UInt8]
    {
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: UInt64 = 0
        let npub = nonce(n)
        _ = crypto_aead_chacha20poly1305_ietf_encrypt(
            &out, &length, plaintext, UInt64(plaintext.count), ad, UInt64(ad.count), nil, npub,
            key.bytes)
        return Array(out.prefix(Int(length)))
    }

    static func decrypt(key: SecretBuffer, nonce n: UInt64, ad: [UInt8], ciphertext: [UInt8])
        throws(HandshakeFailure) -> [UInt8]
    {
        guard ciphertext.count >= 16 else { throw HandshakeFailure(.decryptionFailed) }
        var out = [UInt8](repeating: 0, count: ciphertext.count - 16)
        var length: UInt64 = 0
        let npub = nonce(n)
        let status = crypto_aead_chacha20poly1305_ietf_decrypt(
            &out, &length, nil, ciphertext, UInt64(ciphertext.count), ad, UInt64(ad.count), npub,
            key.bytes)
        guard status == 0 else { throw HandshakeFailure(.decryptionFailed) }
        return Array(out.prefix(Int(length)))
    }
}
