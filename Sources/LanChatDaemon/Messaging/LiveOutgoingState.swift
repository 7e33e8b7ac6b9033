import LanChatStore

/// What a peer link knows about our outgoing messages that the store may not show yet: the
/// seqs written to the session and not acknowledged (`sent`, never stored), and the ACKs
/// received but not yet written as `delivered` (`PeerLink+DeliveryMarks`). The control API
/// lays it over store rows, so an answer never shows `queued` for a message the peer has
/// acknowledged.
struct LiveOutgoingState: Sendable {
    var inFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)?
    /// Per stream: every seq up to the mark's `upTo` is acknowledged, each at the time its
    /// step says.
    var unrecordedDeliveries: [UInt64: DeliveryMark] = [:]

    static let none = LiveOutgoingState()
}

/// A stream's ACKs not yet written to the store as `delivered`.
struct DeliveryMark: Sendable {
    /// Oldest first, one per millisecond: a message's `deliveredAt` is the time of the first
    /// ACK that covered it, not of the last one the coalescing waited for.
    private(set) var steps: [DeliveryStep]
    /// The link's writer has started writing it; a newer ACK makes it one not taken.
    var taken = false

    init(upTo: UInt64, at: Int64) {
        steps = [DeliveryStep(upTo: upTo, at: at)]
    }

    /// Every seq up to this is acknowledged.
    var upTo: UInt64 { steps.last?.upTo ?? 0 }

    /// When `seq` was acknowledged; nil when it is above `upTo`.
    func deliveredAt(_ seq: UInt64) -> Int64? {
        steps.first { seq <= $0.upTo }?.at
    }

    /// A later ACK: a step of its own, unless it came in the same millisecond as the last.
    /// ACKs are cumulative, so one that covers nothing new changes nothing (false).
    @discardableResult
    mutating func add(upTo: UInt64, at: Int64) -> Bool {
        guard upTo > self.upTo else { return false }
        if let last = steps.indices.last, steps[last].at == at {
            steps[last].upTo = upTo
        } else {
            steps.append(DeliveryStep(upTo: upTo, at: at))
        }
        return true
    }
}
