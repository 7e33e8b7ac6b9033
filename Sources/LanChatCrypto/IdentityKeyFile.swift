internal import CSodium
import LanChatCore

/// The 108-byte `identity.key` image (PROTOCOL.md §5): "LCHTKEY1" ‖ flags u32 BE (0) ‖ sk ‖
/// pk ‖ BLAKE2b-256 over the first 76 bytes. Encoding and decoding happen entirely in sodium
/// memory; the checksum catches truncation and bit rot (it is not a MAC).
enum IdentityKeyFile {
    static let size = 108
    static let magic = Array("LCHTKEY1".utf8)
    private static let secretOffset = 12
    private static let publicOffset = 44
    private static let checksumOffset = 76

    /// The file image of `identity`, in a secret buffer.
    static func encode(_ identity: IdentityKeyPair) throws(SodiumError) -> SecretBuffer {
        let image = try SecretBuffer(count: size)
        let bytes = image.bytes
        for (index, byte) in magic.enumerated() { bytes[index] = byte }
        (image.pointer + secretOffset).copyMemory(from: identity.secret.pointer, byteCount: 32)
        for (index, byte) in identity.publicKey.bytes.enumerated() {
            bytes[publicOffset + index] = byte
        }
        try Blake2b.hash256(bytes, count: checksumOffset, into: bytes + checksumOffset)
        return image
    }

    /// Strict decoding of `count` bytes of `image`: every check of §5 step 2. Any failure is
    /// `.corrupt` with the exact reason; the caller must not regenerate the key.
    static func decode(_ image: SecretBuffer, count: Int, path: String) throws(IdentityKeyError)
        -> IdentityKeyPair
    {
        func corrupt(_ reason: String) -> IdentityKeyError {
            IdentityKeyError(.corrupt(reason: reason), path: path)
        }
        guard count == size else { throw corrupt("\(count) bytes, expected \(size)") }
        let bytes = image.bytes
        guard (0..<8).allSatisfy({ bytes[$0] == magic[$0] }) else { throw corrupt("bad magic") }
        let flags = (8..<12).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[$1]) }
        guard flags == 0 else { throw corrupt("unsupported flags \(flags)") }
        var checksum = [UInt8](repeating: 0, count: 32)
        do {
            try Blake2b.hash256(bytes, count: checksumOffset, into: &checksum)
        } catch {
            throw IdentityKeyError(.unreadable(reason: "\(error)"), path: path)
        }
        guard sodium_memcmp(checksum, bytes + checksumOffset, 32) == 0 else {
            throw corrupt("checksum mismatch")
        }
        let secret: SecretBuffer
        do {
            secret = try SecretBuffer(count: 32)
        } catch {
            throw IdentityKeyError(.cryptoFailure(error.description), path: path)
        }
        secret.copy(from: image, offset: secretOffset)
        guard !secret.isAllZero else { throw corrupt("all-zero secret key") }
        guard let derived = NoisePrimitives.publicKey(for: secret),
            sodium_memcmp(derived, bytes + publicOffset, 32) == 0,
            let publicKey = PeerKey(bytes: derived)
        else { throw corrupt("public key does not match the secret key") }
        return IdentityKeyPair(secret: secret, publicKey: publicKey)
    }
}
