/// What a peer link knows about our outgoing messages that the store may not show yet: the
/// seqs written to the session and not acknowledged (`sent`, never stored), and the ACKs
/// received but not yet written as `delivered` (`PeerLink+DeliveryMarks`). The control API
/// lays it over store rows, so an answer never shows `queued` for a message the peer has
/// acknowledged.
struct LiveOutgoingState: Sendable {
    var inFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)?
    /// Per stream: every seq up to `upTo` is acknowledged, at `at` at the latest.
    var unrecordedDeliveries: [UInt64: (upTo: UInt64, at: Int64)] = [:]

    static let none = LiveOutgoingState()
}
