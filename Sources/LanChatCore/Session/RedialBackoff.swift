/// Outbound redial timing (PROTOCOL.md §4.6): 1 s·2^n capped at 5 min, jitter ±25 %,
/// reset after a session that lived 60 s, or at once when the peer is rediscovered.
public struct RedialBackoff: Sendable, Equatable {
    public static let base: Duration = .seconds(1)
    public static let cap: Duration = .seconds(300)
    public static let stableSession: Duration = .seconds(60)

    public private(set) var failures = 0

    public init() {}

    /// The delay before the next attempt, counting this failure.
    public mutating func nextDelay(using generator: inout some RandomNumberGenerator) -> Duration {
        let exponent = min(failures, 16)
        failures += 1
        let nominal = min(Self.base * (1 << exponent), Self.cap)
        let jitter = Double.random(in: 0.75...1.25, using: &generator)
        return nominal * jitter
    }

    public mutating func nextDelay() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return nextDelay(using: &generator)
    }

    /// A session came up and lived `lifetime`: a long one resets the backoff.
    public mutating func sessionEnded(after lifetime: Duration) {
        if lifetime >= Self.stableSession { failures = 0 }
    }

    /// The peer was rediscovered or became reachable: try again at once.
    public mutating func reset() {
        failures = 0
    }
}
