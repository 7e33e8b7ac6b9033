internal import CSodium
import LanChatCore

/// The human-facing forms of a key (PROTOCOL.md §6): the 32-byte fingerprint behind the QR
/// code, the 8-character key tag shown beside names (not for verification), and the pairwise
/// 60-digit safety number users compare. Pure functions of public keys.
public enum Fingerprint {
    private static let fingerprintPrefix = Array("lanchat-fingerprint-v1\0".utf8)
    private static let safetyPrefix = Array("lanchat-safety-number-v1\0".utf8)
    /// Signal's iteration count.
    static let safetyIterations = 5_200

    /// `fp32(pk) = BLAKE2b-256("lanchat-fingerprint-v1\0" ‖ pk)`.
    public static func fingerprint32(_ key: PeerKey) -> [UInt8] {
        let input = fingerprintPrefix + key.bytes
        do {
            return try Blake2b.hash256(input)
        } catch {
            // Fixed sizes and no key: only a libsodium that cannot initialise fails here, and
            // the daemon refuses to start without one (`Sodium.initialize` at start-up).
            preconditionFailure("BLAKE2b failed on a fixed-size input: \(error)")
        }
    }

    /// The first 8 base32 characters of `fp32`, as `XXXX-XXXX` (40 bits: to tell peers apart,
    /// never to verify one).
    public static func keyTag(_ key: PeerKey) -> String {
        let text = Array(Base32.encode(fingerprint32(key)).prefix(8))
        return String(text[0..<4]) + "-" + String(text[4..<8])
    }

    /// The 60-digit safety number of a pair, the same from both sides: the two 30-digit halves
    /// sorted and joined, shown as 12 groups of 5 separated by spaces.
    public static func safetyNumber(_ a: PeerKey, _ b: PeerKey) -> String {
        let first = safetyHalf(a)
        let second = safetyHalf(b)
        let digits = Array(first <= second ? first + second : second + first)
        return stride(from: 0, to: digits.count, by: 5).map { String(digits[$0..<($0 + 5)]) }
            .joined(separator: " ")
    }

    /// d₁ = SHA-512(prefix ‖ pk), dᵢ = SHA-512(dᵢ₋₁ ‖ pk) for 5 200 rounds; then 6 chunks of
    /// 5 bytes, each big-endian mod 100 000, zero-padded to 5 digits.
    static func safetyHalf(_ key: PeerKey) -> String {
        _ = try? Sodium.initialize()
        var digest = sha512(safetyPrefix + key.bytes)
        for _ in 1..<safetyIterations { digest = sha512(digest + key.bytes) }
        var text = ""
        for chunk in 0..<6 {
            let value = digest[(chunk * 5)..<(chunk * 5 + 5)].reduce(UInt64(0)) {
                $0 << 8 | UInt64($1)
            }
            let number = String(value % 100_000)
            text += String(repeating: "0", count: 5 - number.count) + number
        }
        return text
    }

    private static func sha512(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        guard crypto_hash_sha512(&out, data, UInt64(data.count)) == 0 else {
            // Documented never to fail; a libsodium that does cannot make safety numbers.
            preconditionFailure("crypto_hash_sha512 failed")
        }
        return out
    }
}

/// Test hook: the key file checksum (BLAKE2b-256, no key) over arbitrary bytes, so tests can
/// build files that pass the checksum but fail a later check.
package enum KeyFileChecksum {
    package static func compute(_ bytes: [UInt8]) throws(SodiumError) -> [UInt8] {
        try Blake2b.hash256(bytes)
    }
}
