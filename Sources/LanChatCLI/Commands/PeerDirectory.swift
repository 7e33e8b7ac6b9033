import LanChatClient
import LanChatControl

/// Names for messages: `read` and `search` return messages, which carry only their peer's
/// id (and a group message its group's). The text views ask `who --all` once for the peers
/// behind them, and `groups` once when a group's message is among them.
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

    /// The peers by id who wrote one of `messages` in a group but are no longer among its
    /// `members` (removed, or left): the group's own member list cannot name them. Empty,
    /// without a call, when every sender is still a member.
    static func formerMembers(
        in messages: [MessageInfo], members: [String: GroupInfo], client: ControlClient
    ) async -> [String: PeerInfo] {
        let missing = Set(
            messages.compactMap { message -> String? in
                let sender = message.sender ?? message.peer
                guard message.direction == .incoming, let group = message.group,
                    !(members[group]?.members.contains { $0.id == sender } ?? false)
                else { return nil }
                return sender
            })
        guard !missing.isEmpty, let who = try? await client.who(WhoParams(all: true)) else {
            return [:]
        }
        return Dictionary(
            who.peers.filter { missing.contains($0.id) }.map { ($0.id, $0) },
            uniquingKeysWith: { first, _ in first })
    }

    /// The group a GROUP argument names (its id, its name, `#NAME`), if one does; nil when
    /// none does or the daemon cannot say (the argument was a peer, then).
    static func group(named argument: String, client: ControlClient) async -> GroupInfo? {
        guard let result = try? await client.groups() else { return nil }
        let name = argument.hasPrefix("#") ? String(argument.dropFirst()) : argument
        return result.groups.first { $0.id == argument || $0.name == name }
    }

    /// The groups by id when a message belongs to one; empty otherwise or when the call
    /// fails (the messages are then shown with their group ids).
    static func groups(for messages: [MessageInfo], client: ControlClient) async -> [String:
        GroupInfo]
    {
        guard messages.contains(where: { $0.group != nil }),
            let result = try? await client.groups()
        else { return [:] }
        return Dictionary(
            result.groups.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
