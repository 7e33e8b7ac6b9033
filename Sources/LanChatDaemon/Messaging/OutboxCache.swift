import LanChatStore

/// Recently committed outgoing messages by seq, so the pump rarely reads the store. Owned by
/// its `PeerLink`; emptied with each session.
///
/// Why a type: an ACK forgets everything up to its seq. Done by scanning every key, each ACK
/// cost as much as the cache was large (up to 4 096 entries, for every ACK of a busy
/// stream); the seqs held always lie in `lowest...highest`, so forgetting walks only the
/// seqs it removes.
struct OutboxCache {
    private var messages: [UInt64: StoredMessage] = [:]
    private var lowest = UInt64.max
    private var highest = UInt64.min
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    subscript(seq: UInt64) -> StoredMessage? { messages[seq] }

    var count: Int { messages.count }

    /// Keeps `new` if all of it fits; a batch that does not is read from the store instead.
    mutating func keep(_ new: [StoredMessage]) {
        guard messages.count + new.count <= capacity else { return }
        for message in new {
            messages[message.seq] = message
            lowest = min(lowest, message.seq)
            highest = max(highest, message.seq)
        }
    }

    /// Forgets the messages with seq ≤ `seq` (the peer has them).
    mutating func forget(through seq: UInt64) {
        guard !messages.isEmpty, seq >= lowest else { return }
        guard seq < highest else { return removeAll() }
        for old in lowest...seq { messages[old] = nil }
        lowest = seq + 1
    }

    mutating func removeAll() {
        messages.removeAll(keepingCapacity: true)
        lowest = .max
        highest = .min
    }
}
