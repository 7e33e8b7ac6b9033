import LanChatCore

/// The sending side of an established channel (PROTOCOL.md §4): turns messages, PINGs, PONGs
/// and CLOSE into encrypted frames, inserting a REKEY frame when the policy of §3.9 says so.
///
/// Move-only: it owns the outgoing secretstream state, which must never be copied. A
/// `~Copyable` value can only be moved, never shared, so `@unchecked Sendable` is honest: it
/// can be handed to another task, and whoever holds it is its only user. After an error or
/// CLOSE it refuses further use.
public struct FrameSealer: ~Copyable, @unchecked Sendable {
    enum State {
        case open
        case closed
        case failed
    }

    /// §4.3: close the session rather than seal more than 2^48 frames in one direction.
    static var frameBackstop: UInt64 { 1 << 48 }

    private let stream: OutgoingStream
    private var state = State.open
    private var policy = RekeyPolicy()
    private var totalFrames: UInt64 = 0

    init(stream: OutgoingStream) { self.stream = stream }

    /// Appends the DATA frame(s) of one application message (≤ 1 MiB; fragments of at most
    /// 65 516 bytes, END on the last), preceded by a REKEY frame when one is due. `now` feeds
    /// the 10-minute rule. A message over 1 MiB throws and leaves the sealer usable.
    public mutating func sealMessage(
        _ message: [UInt8], now: ContinuousClock.Instant, into out: inout [UInt8]
    ) throws(ChannelError) {
        try ensureOpen()
        let fragments = try Fragmenter.fragments(of: message)
        for fragment in fragments {
            let flags = fragment.end ? TransportFrame.endFlag : 0
            let plaintext = TransportFrame.plaintext(.data, flags: flags, body: fragment.body)
            try seal(plaintext, tag: StreamTag.message.rawValue, now: now, into: &out)
        }
    }

    /// PING with `body` (8 random bytes by convention).
    public mutating func sealPing(_ body: [UInt8], into out: inout [UInt8]) throws(ChannelError) {
        try ensureOpen()
        try checkBody(body)
        let plaintext = TransportFrame.plaintext(.ping, body: body[...])
        try seal(plaintext, tag: StreamTag.message.rawValue, now: nil, into: &out)
    }

    /// PONG echoing a PING's body.
    public mutating func sealPong(_ body: [UInt8], into out: inout [UInt8]) throws(ChannelError) {
        try ensureOpen()
        try checkBody(body)
        let plaintext = TransportFrame.plaintext(.pong, body: body[...])
        try seal(plaintext, tag: StreamTag.message.rawValue, now: nil, into: &out)
    }

    /// CLOSE with TAG_FINAL: the only clean end of the stream. Nothing can be sealed after it.
    public mutating func sealClose(_ reason: CloseReason, into out: inout [UInt8])
        throws(ChannelError)
    {
        try ensureOpen()
        try push(TransportFrame.closePlaintext(reason), tag: StreamTag.final.rawValue, into: &out)
        state = .closed
    }

    /// True until CLOSE is sealed or an error occurs.
    public var isUsable: Bool { state == .open }

    /// Test hook: a frame with any type, flags, body and tag (negative tests on real sockets).
    /// The rekey policy is bypassed; the frame counts like any other.
    package mutating func sealRawFrameForTesting(
        type: UInt8, flags: UInt8, body: [UInt8], tag: UInt8, into out: inout [UInt8]
    ) throws(ChannelError) {
        try ensureOpen()
        try push([type, flags] + body, tag: tag, into: &out)
    }

    /// Test hook: the rekey bookkeeping, to show the triggers.
    package var rekeyPolicyForTesting: RekeyPolicy { policy }

    private mutating func seal(
        _ plaintext: [UInt8], tag: UInt8, now: ContinuousClock.Instant?, into out: inout [UInt8]
    ) throws(ChannelError) {
        if policy.isDue(now: now) {
            try push(
                TransportFrame.plaintext(.rekey, body: []), tag: StreamTag.rekey.rawValue,
                into: &out)
            policy.recordRekey(now: now)
        }
        let before = out.count
        try push(plaintext, tag: tag, into: &out)
        policy.recordFrame(wireBytes: out.count - before, now: now)
    }

    private mutating func push(_ plaintext: [UInt8], tag: UInt8, into out: inout [UInt8])
        throws(ChannelError)
    {
        guard totalFrames < Self.frameBackstop else {
            state = .failed
            throw ChannelError(.counterExhausted)
        }
        do {
            try stream.seal(plaintext, tag: tag, into: &out)
        } catch {
            state = .failed
            throw error
        }
        totalFrames += 1
    }

    private func ensureOpen() throws(ChannelError) {
        switch state {
        case .open: return
        case .closed: throw ChannelError(.closed)
        case .failed: throw ChannelError(.unusable)
        }
    }

    private func checkBody(_ body: [UInt8]) throws(ChannelError) {
        guard body.count <= WireLimits.maximumFrameBody else {
            throw ChannelError(.messageTooLarge(body.count))
        }
    }
}
