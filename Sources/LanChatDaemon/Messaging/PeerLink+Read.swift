import LanChatCore

/// The local user read the peer's messages (PROTOCOL.md §9.5): the read cursor moves, and the
/// peer is told with READ, at once on the established session, or by the `in_read` of our
/// next HELLO (the store has the cursor, so a READ that could not be sent is never lost).
/// With read receipts off, nothing is ever sent.
extension PeerLink {
    /// The store has recorded the peer's stream `stream` read up to `upTo`.
    func readLocally(stream: UInt64, upTo: UInt64) {
        guard ledger?.cursor.stream == stream else {
            // Not loaded yet (the next session reads it from the store), or a stream the
            // peer has since replaced: nothing to tell it about.
            return
        }
        guard let read = ledger?.markRead(upTo: upTo) else { return }
        guard services.readReceipts.enabled, let (session, _) = phase.established else { return }
        session.sendControl([.read(stream: stream, read: read)])
    }
}
