internal import CSodium
import LanChatCore

/// The node's long-term X25519 key pair, used only as the Noise static key (PROTOCOL.md §3.2).
/// The secret key lives in read-only sodium memory for the life of the object.
///
/// `@unchecked Sendable`: after `init` the secret is never written again (the memory is
/// `sodium_mprotect_readonly`), so any number of connections may read it concurrently.
public final class IdentityKeyPair: @unchecked Sendable {
    public let publicKey: PeerKey
    let secret: SecretBuffer

    /// Takes ownership of `secret` (32 bytes) whose public key is `publicKey`.
    init(secret: SecretBuffer, publicKey: PeerKey) {
        self.secret = secret
        self.publicKey = publicKey
        secret.makeReadOnly()
    }

    /// A fresh key pair from `crypto_box_keypair`.
    public static func generate() throws -> IdentityKeyPair {
        let secret = try SecretBuffer(count: Int(crypto_box_secretkeybytes()))
        var publicBytes = [UInt8](repeating: 0, count: PeerKey.byteCount)
        let status = crypto_box_keypair(&publicBytes, secret.bytes)
        guard status == 0, let publicKey = PeerKey(bytes: publicBytes) else {
            throw SodiumError("crypto_box_keypair failed")
        }
        return IdentityKeyPair(secret: secret, publicKey: publicKey)
    }

    /// Test hook: a key pair from known secret bytes (known-answer vectors, fixed ephemerals).
    package static func fromSecretKeyForTesting(_ bytes: [UInt8]) throws -> IdentityKeyPair {
        let secret = try SecretBuffer(copying: bytes)
        guard bytes.count == PeerKey.byteCount,
            let publicBytes = NoisePrimitives.publicKey(for: secret),
            let publicKey = PeerKey(bytes: publicBytes)
        else { throw SodiumError("invalid test secret key") }
        return IdentityKeyPair(secret: secret, publicKey: publicKey)
    }
}
