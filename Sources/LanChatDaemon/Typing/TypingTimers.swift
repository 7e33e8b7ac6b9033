import LanChatCore

/// Who is typing to us (PROTOCOL.md §9.6), as pure state fed with the time: a peer is shown
/// typing from its TYPING(1) until 3 s after the last one, or until its TYPING(0) or a MSG
/// from it. Each method returns what to announce (`peer.typing`), if anything: every
/// TYPING(1) (at most one per 2 s from a sender), so a `watch` that starts while a peer types
/// learns it; an end only when the peer was shown typing.
struct TypingTimers {
    static let showFor: Duration = .seconds(3)

    /// Peers shown typing, with the instant the indicator ends unless renewed.
    private(set) var deadlines: [PeerKey: ContinuousClock.Instant] = [:]

    /// TYPING(`typing`) from `peer`. Returns what to announce, if anything.
    mutating func received(_ typing: Bool, from peer: PeerKey, at now: ContinuousClock.Instant)
        -> Bool?
    {
        if typing {
            deadlines[peer] = now + Self.showFor
            return true
        }
        return deadlines.removeValue(forKey: peer) != nil ? false : nil
    }

    /// A MSG from `peer` was stored: whatever it was typing has arrived. True when the
    /// indicator ended.
    mutating func messageArrived(from peer: PeerKey) -> Bool {
        deadlines.removeValue(forKey: peer) != nil
    }

    /// The peers whose indicator ended by `now`, removed.
    mutating func expire(at now: ContinuousClock.Instant) -> [PeerKey] {
        let ended = deadlines.filter { $0.value <= now }.map(\.key)
        for peer in ended { deadlines[peer] = nil }
        return ended
    }

    /// When the next indicator ends, if any is shown.
    var nextDeadline: ContinuousClock.Instant? { deadlines.values.min() }
}
