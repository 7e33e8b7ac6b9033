/// What the receiving side of an established channel delivers, in wire order.
public enum ChannelEvent: Equatable, Sendable {
    /// One whole application message (DATA fragments up to END), at most 1 MiB.
    case message([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer closed cleanly (CLOSE with TAG_FINAL); nothing after it is read.
    case close(CloseReason)
}
