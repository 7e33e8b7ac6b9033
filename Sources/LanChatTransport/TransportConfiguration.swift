import NIOCore

/// Timers and limits of a node's TCP sessions (PROTOCOL.md §3.9, §4.5, §4.6). The defaults
/// are the protocol's; tests shorten the timers instead of waiting for them.
public struct TransportConfiguration: Sendable {
    /// Connect timeout for outbound TCP.
    public var connectTimeout: TimeAmount = .seconds(5)
    /// The whole handshake, including both header frames.
    public var handshakeTimeout: TimeAmount = .seconds(10)
    /// Longest silence while the handshake is in progress (slowloris guard).
    public var handshakeReadIdle: TimeAmount = .seconds(5)
    /// Send a PING after this long without sending anything.
    public var keepaliveInterval: TimeAmount = .seconds(15)
    /// Close a session when nothing arrived for this long (the dead timeout).
    public var deadTimeout: TimeAmount = .seconds(60)
    /// How often the timers above are checked; their accuracy.
    public var timerResolution: TimeAmount = .milliseconds(500)
    /// Answer at most this many PINGs per second (PING flood, §7.2 32).
    public var pongsPerSecond = 4
    /// Inbound admission (§4.6): unauthenticated handshakes in total and per source address.
    public var maxPendingHandshakes = 64
    public var maxPendingHandshakesPerAddress = 4
    /// Inbound connection rate per source address (§4.6): a token bucket of this burst,
    /// refilled one token per interval.
    public var connectionBurstPerAddress = 10
    public var connectionRefillInterval: Duration = .seconds(2)
    /// This many failed handshakes from one address within the window refuse it for the
    /// first penalty, doubled with every further one up to the longest (§4.6).
    public var failuresBeforePenalty = 5
    public var failureWindow: Duration = .seconds(60)
    public var firstPenalty: Duration = .seconds(60)
    public var longestPenalty: Duration = .seconds(3600)
    /// Outbound handshakes in progress: a budget of their own, which inbound connections
    /// cannot use up, so a flood of strangers never stops us dialling known peers.
    public var maxPendingDials = 64
    /// Per-session outbound buffer; writers wait (backpressure) above the high mark (§4.5).
    public var writeBufferLowWaterMark = 1 << 20
    public var writeBufferHighWaterMark = 4 << 20
    /// Past the high mark only small protocol messages are written (ACK, REJECT, READ,
    /// TYPING: they never wait, see `SessionHandle.sendControl`). A peer that keeps sending
    /// and never reads would make them pile up without end (found by review); past this many
    /// bytes waiting, the session is closed.
    public var outboundHardLimit = 16 << 20

    public init() {}
}
