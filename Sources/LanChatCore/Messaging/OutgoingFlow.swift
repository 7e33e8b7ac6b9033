/// The sending side of our stream to one peer, for the lifetime of one session
/// (PROTOCOL.md §9.3, §9.5): resume after the peer's HELLO, cumulative ACKs, READs, REJECTs
/// and the in-flight window. A new session starts a new `OutgoingFlow` from the store.
///
/// Messages in `acknowledged+1 ..< nextToSend` are `sent`; on session close they fall back
/// to `queued` simply because this value is dropped.
public struct OutgoingFlow: Sendable, Equatable {
    /// Our stream to this peer; nil until the first message to it was committed.
    public private(set) var stream: UInt64?
    /// Highest seq committed to the store for this stream (0: none).
    public private(set) var highestAssigned: UInt64
    /// Highest seq the peer has processed (delivered or rejected), as far as we know.
    public private(set) var acknowledged: UInt64 = 0
    /// Highest seq the peer has read.
    public private(set) var read: UInt64 = 0
    /// Next seq to write; nil until the peer's HELLO told us where to resume.
    public private(set) var nextToSend: UInt64?
    public let windowSize: Int
    /// The most a peer commits and acknowledges at once (§9.4): the unit the window is
    /// refilled in while it is full (`sendable`).
    public let batchSize: Int

    public init(
        stream: UInt64?, highestAssigned: UInt64, windowSize: Int = Limits.maxInFlight,
        batchSize: Int = Limits.maxAckBatch
    ) {
        self.stream = stream
        self.highestAssigned = highestAssigned
        self.windowSize = windowSize
        self.batchSize = min(batchSize, windowSize)
    }

    /// What the peer's HELLO means for our stream.
    public struct Resume: Equatable, Sendable {
        /// Mark every message with `seq ≤ this` delivered (nil: nothing to mark).
        public var deliveredUpTo: UInt64?
        public var readUpTo: UInt64?
        /// The peer holds more of this stream than we ever assigned (our store went back in
        /// time): continuing would make it drop new messages as duplicates, so the caller must
        /// start a fresh stream.
        public var peerAheadOfStream: Bool
    }

    /// Where the store had our stream when it was read for the peer's HELLO: the stream and
    /// its lowest seq not yet delivered, read or failed (the next seq to assign when every
    /// one was).
    public struct StoredStart: Equatable, Sendable {
        public var stream: UInt64
        public var firstUndelivered: UInt64

        public init(stream: UInt64, firstUndelivered: UInt64) {
            self.stream = stream
            self.firstUndelivered = firstUndelivered
        }
    }

    /// Applies the peer's incoming cursor from its HELLO. `stored` (nil: the store had no
    /// stream to this peer) is where sending starts when the peer does not follow our stream.
    ///
    /// The store is read before the HELLO is applied, and messages committed in between have
    /// already joined this flow (`assigned`): they are all newer than what was read, so they
    /// are sent whatever `stored` says. A stream the read did not know is sent from its
    /// first seq. (Starting after `highestAssigned` once skipped the first message to a
    /// peer when it was committed during that read.)
    public mutating func helloReceived(
        inStream: UInt64, inDelivered: UInt64, inRead: UInt64, stored: StoredStart?
    ) -> Resume {
        guard let stream, stream == inStream, inStream != 0 else {
            let start: UInt64 =
                if let stored, stored.stream == stream {
                    min(stored.firstUndelivered, highestAssigned + 1)
                } else {
                    1
                }
            acknowledged = start - 1
            nextToSend = start
            return Resume(deliveredUpTo: nil, readUpTo: nil, peerAheadOfStream: false)
        }
        guard inDelivered <= highestAssigned else {
            // The peer's cursor counts messages of a history we no longer have (our store went
            // back in time, or the peer lies): it says nothing about the ones we hold, some of
            // which it never saw. None is marked; the caller moves every undelivered one to a
            // fresh stream, and the peer drops by id those it has already (found by QA: the
            // queued ones were marked read and never sent).
            let start = stored.map { min($0.firstUndelivered, highestAssigned + 1) } ?? 1
            acknowledged = start - 1
            nextToSend = start
            return Resume(deliveredUpTo: nil, readUpTo: nil, peerAheadOfStream: true)
        }
        acknowledged = inDelivered
        read = min(inRead, inDelivered)
        nextToSend = inDelivered + 1
        return Resume(
            deliveredUpTo: inDelivered > 0 ? inDelivered : nil, readUpTo: read > 0 ? read : nil,
            peerAheadOfStream: false)
    }

    /// New messages were committed for this peer (their seqs run up to `seq`).
    public mutating func assigned(stream newStream: UInt64, upTo seq: UInt64) {
        if stream != newStream {
            // First message ever, or a fresh stream after a rotation: the peer has seen none.
            stream = newStream
            highestAssigned = seq
            acknowledged = 0
            read = 0
            if nextToSend != nil { nextToSend = 1 }
            return
        }
        highestAssigned = max(highestAssigned, seq)
    }

    /// Seqs that may be written now: resumed, within the window, committed.
    ///
    /// While the window is what holds messages back (more are committed than it has room
    /// for, some are in flight), it is refilled a whole batch at a time. The peer commits
    /// what arrives in one read as one transaction, so the batches we write become its
    /// commits, and each commit's ACK opens the window by that much: one short batch (a
    /// read that caught half a write) would otherwise repeat in every round of the window
    /// for the rest of the burst, one more fsync on the peer per 1 024 messages. Waiting
    /// costs nothing: at least `windowSize − batchSize` messages are still in flight.
    public var sendable: ClosedRange<UInt64>? {
        guard let nextToSend, nextToSend <= highestAssigned else { return nil }
        let inFlight = nextToSend - 1 - acknowledged
        guard inFlight < UInt64(windowSize) else { return nil }
        let room = UInt64(windowSize) - inFlight
        let last = min(highestAssigned, nextToSend + room - 1)
        let heldByWindow = last < highestAssigned
        if heldByWindow, inFlight > 0, room < UInt64(batchSize) { return nil }
        return nextToSend...last
    }

    /// The seqs written but not yet acknowledged: what `history` shows as `sent`.
    public var inFlight: ClosedRange<UInt64>? {
        guard let nextToSend, nextToSend > acknowledged + 1 else { return nil }
        return (acknowledged + 1)...(nextToSend - 1)
    }

    public mutating func didSend(upTo seq: UInt64) {
        guard let next = nextToSend, seq >= next else { return }
        nextToSend = seq + 1
    }

    public struct Violation: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// ACK(stream, d). Returns the seq up to which messages became delivered, or nil when
    /// the ACK adds nothing (a re-ACK of duplicates).
    public mutating func ackReceived(stream ackStream: UInt64, delivered: UInt64)
        throws(Violation) -> UInt64?
    {
        try check(ackStream, covers: delivered, what: "ACK")
        guard delivered > acknowledged else { return nil }
        acknowledged = delivered
        return delivered
    }

    /// READ(stream, r). Returns the new read mark when it moved forward.
    public mutating func readReceived(stream readStream: UInt64, read newRead: UInt64)
        throws(Violation) -> UInt64?
    {
        guard let stream, readStream == stream else {
            throw Violation(description: "READ for an unknown stream")
        }
        guard newRead <= highestAssigned else {
            throw Violation(description: "READ beyond the highest assigned seq")
        }
        guard newRead > read else { return nil }
        read = newRead
        return newRead
    }

    /// REJECT(stream, seq): the message is failed and counts as processed by the peer.
    public mutating func rejectReceived(stream rejectStream: UInt64, seq: UInt64)
        throws(Violation)
    {
        try check(rejectStream, covers: seq, what: "REJECT")
    }

    private func check(_ otherStream: UInt64, covers seq: UInt64, what: String) throws(Violation) {
        guard let stream, otherStream == stream else {
            throw Violation(description: "\(what) for an unknown stream")
        }
        guard let nextToSend, seq < nextToSend else {
            throw Violation(description: "\(what) beyond the highest sent seq")
        }
    }
}
