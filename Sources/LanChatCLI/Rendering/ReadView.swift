import LanChatControl

/// Text output of `lanchat read`: the messages just marked read, in the layout of `history`
/// (day separators, names, times), one block per conversation under its header line.
package enum ReadView {
    /// `peers` names the conversations (messages carry only the peer id); a peer missing
    /// from it is shown by its id.
    package static func render(
        _ result: ReadResult, peers: [String: PeerInfo], peerArgument: String?, now: Timestamp,
        zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        guard !result.messages.isEmpty else {
            guard let peerArgument else { return "No unread messages.\n" }
            return "No unread messages from \(terminalSafe(peerArgument)).\n"
        }
        var blocks: [String] = []
        for conversation in groupedByPeer(result.messages) {
            let peerID = conversation[0].peer
            let header: String
            let label: String
            if let peer = peers[peerID] {
                header = HistoryView.header(peer, style: style)
                label = truncated(peer.displayName, to: 24)
            } else {
                header = style.bold(truncated(peerID, to: 60)) + "\n"
                label = truncated(peerID, to: 12)
            }
            blocks.append(
                header
                    + HistoryView.messageLines(
                        conversation, theirLabel: label, now: now, zone: zone, style: style))
        }
        return blocks.joined(separator: "\n")
    }

    /// The messages of each peer, peers in order of first appearance, messages in the order
    /// given (oldest first).
    static func groupedByPeer(_ messages: [MessageInfo]) -> [[MessageInfo]] {
        var groups: [[MessageInfo]] = []
        var index: [String: Int] = [:]
        for message in messages {
            if let position = index[message.peer] {
                groups[position].append(message)
            } else {
                index[message.peer] = groups.count
                groups.append([message])
            }
        }
        return groups
    }
}
