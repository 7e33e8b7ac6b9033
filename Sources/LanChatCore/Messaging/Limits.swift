/// The limits of PRODUCT.md §7 and PROTOCOL.md §9, in one place. Every one is enforced with a
/// clear error at the CLI and the API, and with a REJECT or a closed session on the wire.
public enum Limits {
    /// Message text, in UTF-8 bytes: 1 … 65 536.
    public static let maxTextBytes = 65_536
    public static let maxDisplayNameBytes = 64
    public static let maxStatusTextBytes = 128
    public static let maxSessions = 256
    /// MSG written to a session and not yet acknowledged (§9.5 flow control).
    public static let maxInFlight = 1_024
    /// One ACK per committed batch, at most this many messages per batch (§9.4).
    public static let maxAckBatch = 256
}
