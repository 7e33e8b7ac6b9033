import LanChatCore

/// How often a peer's PRESENCE is applied (found by QA: a peer sent 50 000 in half a second;
/// each was a store write and a durable `peer.presence` event, 50 s of the daemon's work and
/// 112 000 events that every `watch --since` replays). PROTOCOL.md §9.6 sends PRESENCE when
/// the user changes presence, which reaches peers within a second (PRODUCT.md's figure, and
/// system scenario 13, which changes it five times in a row): ten in a row are applied at
/// once, then one every `interval`. A frame that comes sooner is held, the latest replacing
/// the one held, and applied when its turn comes, so the peer's last word always stands.
/// Pure: the link owns one and passes the time in.
struct PresencePacer {
    struct Presence: Equatable {
        var status: AnnouncedStatus
        var text: String
    }

    static let burst = 10
    static let interval: Duration = .seconds(2)

    private var tokens = Double(Self.burst)
    private var refilledAt: ContinuousClock.Instant?
    /// The latest frame that came while no turn was free.
    private(set) var held: Presence?

    /// The frame to apply now, or nil when it is held for later.
    mutating func offer(_ presence: Presence, now: ContinuousClock.Instant) -> Presence? {
        refill(now)
        guard held == nil, tokens >= 1 else {
            held = presence
            return nil
        }
        tokens -= 1
        return presence
    }

    /// When the frame held can be applied (nil: none is held).
    func heldDue(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard held != nil else { return nil }
        var copy = self
        copy.refill(now)
        let missing = max(0, 1 - copy.tokens)
        return now + Self.interval * missing
    }

    /// The frame held, once its turn has come.
    mutating func takeHeld(now: ContinuousClock.Instant) -> Presence? {
        refill(now)
        // Woken at `heldDue`, the refill may fall short of 1 by a rounding error.
        guard let presence = held, tokens >= 1 - 1e-9 else { return nil }
        tokens = max(0, tokens - 1)
        held = nil
        return presence
    }

    private mutating func refill(_ now: ContinuousClock.Instant) {
        if let refilledAt {
            tokens = min(Double(Self.burst), tokens + (now - refilledAt) / Self.interval)
        }
        refilledAt = now
    }
}
