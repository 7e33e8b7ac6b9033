/// Joins DATA fragments into application messages on the receiving side: one message in
/// progress, at most 1 MiB; the overflow is detected before the fragment is copied, and the
/// buffer's capacity never exceeds the limit. Owned by one FrameOpener.
public struct Reassembler: Sendable {
    public let limit: Int
    private var pending: [UInt8] = []

    public init(limit: Int = WireLimits.maximumMessage) { self.limit = limit }

    /// Adds a fragment; returns the whole message when `end` is set.
    public mutating func append(_ fragment: ArraySlice<UInt8>, end: Bool) throws(ChannelError)
        -> [UInt8]?
    {
        let total = pending.count + fragment.count
        guard total <= limit else {
            pending = []
            throw ChannelError(.reassemblyOverflow)
        }
        if end && pending.isEmpty { return Array(fragment) }
        if total > pending.capacity {
            pending.reserveCapacity(min(limit, max(total, pending.capacity * 2)))
        }
        pending += fragment
        guard end else { return nil }
        defer { pending = [] }
        return pending
    }

    /// Bytes of the message in progress.
    public var bytesInProgress: Int { pending.count }
    /// Test hook: the buffer's capacity, to show memory stays within the limit.
    package var capacity: Int { pending.capacity }
}

/// Splits an outgoing application message into DATA fragment bodies of at most 65 516 bytes;
/// the last one carries END. An empty message is one empty fragment with END.
public enum Fragmenter {
    public static func fragments(of message: [UInt8]) throws(ChannelError) -> [(
        body: ArraySlice<UInt8>, end: Bool
    )] {
        guard message.count <= WireLimits.maximumMessage else {
            throw ChannelError(.messageTooLarge(message.count))
        }
        guard !message.isEmpty else { return [(message[...], true)] }
        var result: [(body: ArraySlice<UInt8>, end: Bool)] = []
        var start = 0
        while start < message.count {
            let end = min(start + WireLimits.maximumFrameBody, message.count)
            result.append((message[start..<end], end == message.count))
            start = end
        }
        return result
    }
}
