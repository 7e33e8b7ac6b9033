/// The receiving side of one peer's stream (PROTOCOL.md §9.2, §9.4): decides, for every MSG
/// in arrival order, whether it is stored, rejected, a duplicate, or a gap.
///
/// Owned by the daemon's per-peer link and driven under its inbound lock, one batch at a
/// time. The cursor returned after a batch is what must be committed together with the
/// batch's messages; only after that commit may an ACK carry it.
public struct IncomingCursor: Equatable, Sendable {
    /// The peer's stream we follow; 0 before the first MSG.
    public var stream: UInt64
    /// Every message with `seq ≤ delivered` is durably stored (or was rejected).
    public var delivered: UInt64
    /// Every message with `seq ≤ read` has been read by the local user.
    public var read: UInt64

    public init(stream: UInt64 = 0, delivered: UInt64 = 0, read: UInt64 = 0) {
        self.stream = stream
        self.delivered = delivered
        self.read = read
    }
}

public enum IncomingVerdict: Equatable, Sendable {
    /// The next message of the stream: store it (the cursor has advanced past it).
    case store
    /// Counts as processed (the cursor advanced), is not stored, and is answered with REJECT.
    case reject(RejectReason)
    /// Already stored: drop it and answer with ACK(cursor.delivered).
    case duplicate
    /// A faulty peer skipped sequence numbers, or sent stream/seq 0: close with
    /// CLOSE(PROTOCOL_ERROR) and store nothing of it.
    case protocolError(String)
}

public struct IncomingLedger: Sendable {
    /// The local user read the peer's stream `stream` up to `upTo`.
    public struct ReadRequest: Equatable, Sendable {
        public var stream: UInt64
        public var upTo: UInt64
    }

    public private(set) var cursor: IncomingCursor
    /// How far the local user read, which can be past `delivered`, or on a stream the
    /// ledger does not follow yet: the daemon's store commits a chunk and its ACK leaves at
    /// that commit, before the link takes the chunk's cursor in, and the user can read the
    /// chunk in between (a chat marks a message read as it shows it; the first message of a
    /// new stream too). `markRead` and `classify` move `cursor.read` up to it as `delivered`
    /// reaches it (found as a chat test's missing "✓✓ read" on a loaded machine: the READ was
    /// cut at the old `delivered` and the rest never sent).
    public private(set) var readRequest: ReadRequest?

    public init(cursor: IncomingCursor) {
        self.cursor = cursor
    }

    /// Classifies the next MSG and advances the cursor when it counts as processed.
    /// `policy` may refuse an otherwise acceptable message (blocked or unknown senders, group
    /// messages for a group the sender is not in): which group MSGs are taken is the caller's
    /// business, the ledger only orders them like any other.
    public mutating func classify(
        _ message: WireMessage, policy: (WireMessage) -> RejectReason? = { _ in nil }
    ) -> IncomingVerdict {
        guard message.stream != 0, message.seq != 0 else {
            return .protocolError("MSG with stream or seq 0")
        }
        if message.stream != cursor.stream {
            // A new stream (first contact, or the sender lost its store): the sender always
            // starts with its oldest undelivered message, so adopt from here. Nothing of it is
            // read here yet: PROTOCOL.md §9.4 sets `in_read = seq − 1`, but messages before
            // `seq` that this store does not hold (it was restored from a backup) were never
            // read by its user, and a HELLO saying so showed them read at their sender
            // (found by QA). A READ is cumulative, so the next read still covers them.
            cursor = IncomingCursor(stream: message.stream, delivered: message.seq - 1, read: 0)
            if readRequest?.stream != message.stream { readRequest = nil }
        }
        if message.seq <= cursor.delivered { return .duplicate }
        guard message.seq == cursor.delivered + 1 else {
            return .protocolError(
                "gap in stream: expected seq \(cursor.delivered + 1), got \(message.seq)")
        }
        cursor.delivered = message.seq
        if case .unacceptable(let reason) = message.text { return .reject(reason) }
        if let reason = policy(message) { return .reject(reason) }
        return .store
    }

    /// Records that the local user read the peer's stream `stream` up to `seq` (never
    /// backwards, never past delivered: what is past it, or on a stream not followed yet,
    /// waits in `readRequest` for the messages to be delivered).
    /// Returns the new read cursor when it moved.
    public mutating func markRead(stream: UInt64, upTo seq: UInt64) -> UInt64? {
        if let request = readRequest, request.stream == stream {
            readRequest?.upTo = max(request.upTo, seq)
        } else {
            readRequest = ReadRequest(stream: stream, upTo: seq)
        }
        return applyReadRequest()
    }

    /// Moves `cursor.read` as far as `readRequest` asks and `delivered` allows; the new read
    /// cursor when it moved.
    public mutating func applyReadRequest() -> UInt64? {
        guard let request = readRequest, request.stream == cursor.stream else { return nil }
        let target = min(request.upTo, cursor.delivered)
        guard target > cursor.read else { return nil }
        cursor.read = target
        return target
    }
}
