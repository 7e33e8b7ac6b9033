/// A peer's identity: its 32-byte X25519 static public key, as proven in the Noise handshake
/// (PROTOCOL.md §3.2). Names, hosts and addresses are labels; this is the identity.
///
/// Every `PeerKey` is canonical (§3.1): bit 255 clear and the little-endian value below
/// 2^255 − 19. Without that rule one private key would have several byte-distinct identities.
public struct PeerKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let byteCount = 32
    /// The length of the text id: base32 of 32 bytes without padding.
    public static let idLength = 52

    public let bytes: [UInt8]

    /// Nil unless `bytes` is exactly 32 bytes and a canonical u-coordinate.
    public init?(bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        guard array.count == Self.byteCount, Self.isCanonical(array) else { return nil }
        self.bytes = array
    }

    /// Parses the 52-character id (case-insensitive). Nil for anything else.
    public init?(id: some StringProtocol) {
        guard id.utf8.count == Self.idLength, let decoded = Base32.decode(id) else { return nil }
        self.init(bytes: decoded)
    }

    /// The canonical text form: 52 upper-case base32 characters.
    public var id: String { Base32.encode(bytes) }

    public var description: String { id }

    /// Byte-wise order, used by the simultaneous-dial rule (§3.9).
    public static func < (lhs: PeerKey, rhs: PeerKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// True when `bytes` (32, little-endian) has bit 255 clear and is below p = 2^255 − 19.
    public static func isCanonical(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == byteCount, bytes[31] & 0x80 == 0 else { return false }
        // p = 0x7fff…ffed (little-endian: ed ff … ff 7f). Values ≥ p are exactly
        // bytes[31] == 0x7f, bytes[1...30] all 0xff and bytes[0] ≥ 0xed.
        guard bytes[31] == 0x7F else { return true }
        for index in 1...30 where bytes[index] != 0xFF { return true }
        return bytes[0] < 0xED
    }
}
