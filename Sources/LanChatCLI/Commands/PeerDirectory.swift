import LanChatClient
import LanChatControl

/// Names for messages: `read` and `search` return messages, which carry only their peer's
/// id. The text views ask `who --all` once for the peers behind them.
enum PeerDirectory {
    /// The known peers by id; empty when there are no messages or the call fails (the
    /// messages are then shown with their peer ids rather than not at all).
    static func names(for messages: [MessageInfo], client: ControlClient) async -> [String:
        PeerInfo]
    {
        guard !messages.isEmpty else { return [:] }
        guard let who = try? await client.who(WhoParams(all: true)) else { return [:] }
        return Dictionary(who.peers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
