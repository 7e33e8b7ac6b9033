/// Capability bits we announce in the handshake payload (PROTOCOL.md §3.7). The negotiated
/// set is ours AND the peer's; a feature is used on a session only when its bit is in it.
public enum Capabilities {
    /// The GROUP kind (0x08) and group MSGs (flags bit 0), PROTOCOL.md §9.7.
    public static let groups: UInt64 = 1 << 0
    /// Everything this version implements.
    public static let supported: UInt64 = groups
}
