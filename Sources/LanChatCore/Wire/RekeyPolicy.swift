/// When the sender ratchets its secretstream key (PROTOCOL.md §3.9): after 2^16 frames,
/// 64 MiB on the wire, or 10 minutes with traffic since the last rekey, whichever comes first.
/// Pure bookkeeping; time is passed in, so tests use a fake clock. Owned by one FrameSealer.
public struct RekeyPolicy: Sendable {
    public static let frameLimit: UInt64 = 1 << 16
    public static let byteLimit: UInt64 = 64 << 20
    public static let interval: Duration = .seconds(600)

    /// Frames sealed since the last rekey (the REKEY frame itself not counted).
    public private(set) var framesSinceRekey: UInt64 = 0
    /// Wire bytes (length prefix + ciphertext) sealed since the last rekey.
    public private(set) var bytesSinceRekey: UInt64 = 0
    /// When the current key epoch started: the last rekey, or the first frame of the session.
    public private(set) var epochStart: ContinuousClock.Instant?

    public init() {}

    /// True when a REKEY frame must precede the next frame. `now` is nil for frames that carry
    /// no time (PING, PONG): then only the frame and byte limits apply.
    public func isDue(now: ContinuousClock.Instant?) -> Bool {
        if framesSinceRekey >= Self.frameLimit || bytesSinceRekey >= Self.byteLimit { return true }
        guard let now, let epochStart, framesSinceRekey > 0 else { return false }
        return now - epochStart >= Self.interval
    }

    public mutating func recordFrame(wireBytes: Int, now: ContinuousClock.Instant?) {
        if epochStart == nil, let now { epochStart = now }
        framesSinceRekey += 1
        bytesSinceRekey += UInt64(max(wireBytes, 0))
    }

    public mutating func recordRekey(now: ContinuousClock.Instant?) {
        framesSinceRekey = 0
        bytesSinceRekey = 0
        epochStart = now
    }
}
