/// What a peer link knows about our outgoing messages that the store may not show yet: the
/// seqs written to the session and not acknowledged (`sent`, never stored), and the ACKs
/// received but not yet written as `delivered` (`PeerLink+DeliveryMarks`). The control API
/// lays it over store rows, so an answer never shows `queued` for a message the peer has
/// acknowledged.
struct LiveOutgoingState: Sendable {
    var inFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)?
    /// Per stream: every seq up to the mark's `upTo` is acknowledged, at its `at` at the
    /// latest.
    var unrecordedDeliveries: [UInt64: DeliveryMark] = [:]

    static let none = LiveOutgoingState()
}

/// An ACK not yet written to the store as `delivered`.
struct DeliveryMark: Sendable {
    var upTo: UInt64
    /// When the newest ACK covering it arrived: never earlier than the real ACK of any
    /// message it marks.
    var at: Int64
    /// The link's writer has started writing it; a newer ACK replaces it with one not taken.
    var taken = false
}
