import LanChatControl

extension Messenger {
    /// `typing`: forwards the local user's typing state to an online peer; an offline peer
    /// does not learn it (it would be stale by the time it is back).
    func typing(_ params: TypingParams) async throws(ControlError) -> TypingResult {
        let peer = try directory.resolve(params.peer)
        guard peer.record.trust != .blocked else {
            throw .failed("\(peer.labelled) is blocked")
        }
        guard let link = registry.existingLink(for: peer.key) else {
            return TypingResult(sent: false)
        }
        return TypingResult(sent: await link.sendTyping(params.typing))
    }
}
