import LanChatCore

/// The local user read the peer's messages (PROTOCOL.md §9.5): the read cursor moves, and the
/// peer is told with READ, at once on the established session, or by the `in_read` of our
/// next HELLO (the store has the cursor, so a READ that could not be sent is never lost).
/// With read receipts off, nothing is ever sent.
extension PeerLink {
    /// The store has recorded the peer's stream `stream` read up to `upTo`.
    /// A stream the ledger does not follow is kept as a request: the first chunk of a new
    /// stream can be read before the link takes it in (`IncomingLedger.readRequest`); one the
    /// peer has since replaced is never followed again, and its request does nothing. With
    /// no ledger yet, the next session reads the cursor from the store.
    func readLocally(stream: UInt64, upTo: UInt64) {
        guard let read = ledger?.markRead(stream: stream, upTo: upTo) else { return }
        tellRead(stream: stream, read: read)
    }

    /// READ on the established session, with read receipts on.
    func tellRead(stream: UInt64, read: UInt64) {
        guard services.readReceipts.enabled, let (session, _) = phase.established else { return }
        session.sendControl([.read(stream: stream, read: read)])
    }
}
