/// LCHT/1 byte strings the attack tests send (PROTOCOL.md §3.4), embedded as constants.
enum WireBytes {
    /// "LCHT", wire version 1, max version 1, reserved 0.
    static let preamble: [UInt8] = [0x4C, 0x43, 0x48, 0x54, 0x01, 0x01, 0x00, 0x00]
    /// The initiator's first flight: preamble, u16 length 32, the 32-byte ephemeral key.
    static let firstFlightLength = 42
    /// msg2 as the responder sends it: u16 length 108, then 108 bytes.
    static let msg2FrameLength = 2 + 108
    /// msg3 from the initiator: u16 length 76, then 76 bytes.
    static let msg3FrameLength = 2 + 76

    /// A big-endian u16.
    static func length(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// `count` random bytes.
    static func random(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255) }
    }

    /// A random canonical X25519 public key (bit 255 clear), as an honest msg1 carries.
    static func randomPublicKey() -> [UInt8] {
        var key = random(32)
        key[31] &= 0x7F
        return key
    }
}
