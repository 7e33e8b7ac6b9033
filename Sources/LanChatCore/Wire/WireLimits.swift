/// The fixed numbers of `LCHT/1` (PROTOCOL.md §3.4, §4.2). One place, so the parsers, the
/// state machines and the tests agree on every bound.
public enum WireLimits {
    /// "LCHT": the first four bytes of the preamble and of a VERSION_REJECT.
    public static let magic: [UInt8] = [0x4C, 0x43, 0x48, 0x54]
    /// The wire version this implementation speaks (selects the Noise suite and layouts).
    public static let wireVersion: UInt8 = 1
    /// The highest wire version this implementation implements.
    public static let maxVersion: UInt8 = 1
    /// The cleartext preamble (and VERSION_REJECT) length.
    public static let preambleLength = 8

    /// The size of an X25519 public key and of an encrypted one (key + Poly1305 tag).
    public static let publicKeyLength = 32
    public static let aeadTagLength = 16

    /// msg1 is exactly the initiator's ephemeral key.
    public static let message1Bounds = 32...32
    /// msg2: e (32) ‖ ENC(s) (48) ‖ ENC(payload 12…512) (28…528).
    public static let message2Bounds = 108...608
    /// msg3: ENC(s) (48) ‖ ENC(payload 12…512) (28…528).
    public static let message3Bounds = 76...576

    /// The handshake payload inside msg2 and msg3.
    public static let payloadMinimum = 12
    public static let payloadMaximum = 512

    /// The first transport frame of each direction: the raw secretstream header.
    public static let streamHeaderLength = 24
    /// secretstream adds 17 bytes (1 encrypted tag byte + 16-byte MAC) to every plaintext.
    public static let streamOverhead = 17
    /// A transport frame: the smallest is type + flags + overhead, the largest fits a u16.
    public static let transportFrameBounds = 19...65_535
    /// The largest frame body: 65 535 − 17 − 2 (type, flags).
    public static let maximumFrameBody = 65_516
    /// A reassembled application message (DATA fragments up to END).
    public static let maximumMessage = 1 << 20
    /// The largest length prefix: the size of the one read buffer each connection owns.
    public static let maximumFrameLength = 65_535
}
