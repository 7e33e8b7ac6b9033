import LanChatCore

/// Sending TYPING (PROTOCOL.md §9.6) on the established session. The chat client already
/// sends TYPING(1) at most every 2 s; the link enforces it too, so no other API client can
/// make the daemon flood a peer with it. TYPING(0) always goes out.
extension PeerLink {
    static let typingInterval: Duration = .seconds(2)

    /// Returns whether TYPING went out.
    func sendTyping(_ typing: Bool) -> Bool {
        guard let (session, _) = phase.established else { return false }
        let now = services.clock.monotonic()
        if typing {
            if let last = lastTypingSent, now < last + Self.typingInterval { return false }
            lastTypingSent = now
        } else {
            lastTypingSent = nil
        }
        session.sendControl([.typing(typing)])
        return true
    }
}
