internal import CSodium
import LanChatCore

extension PeerKey {
    /// Whether this key is one of X25519's low-order points, with which every Diffie-Hellman
    /// comes out all zero: no handshake with it can ever succeed (PROTOCOL.md §3.1), so
    /// `add` refuses it instead of keeping a contact nothing can reach. Any clamped scalar
    /// tells them apart, as clamping makes it a multiple of the cofactor: no secret needed.
    public var isLowOrder: Bool {
        var scalar = [UInt8](repeating: 0, count: 32)
        scalar[0] = 9
        var output = [UInt8](repeating: 0, count: 32)
        return crypto_scalarmult(&output, scalar, bytes) != 0
    }
}
