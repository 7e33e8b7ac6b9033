import LanChatControl

/// Text output of `lanchat read`: the messages just marked read, in the layout of `history`
/// (day separators, names, times), one block per conversation under its header line.
package enum ReadView {
    /// `peers` names the conversations (messages carry only the peer id) and `groups` the
    /// group conversations (their messages carry the group id); one missing is shown by its
    /// id.
    package static func render(
        _ result: ReadResult, peers: [String: PeerInfo], groups: [String: GroupInfo] = [:],
        peerArgument: String?, readGroup: GroupInfo? = nil, now: Timestamp,
        zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        guard !result.messages.isEmpty else {
            // A group read is named as a group (found by QA: "from ops").
            if let readGroup {
                return "No unread messages in #\(truncated(readGroup.name, to: 40)).\n"
            }
            guard let peerArgument else { return "No unread messages.\n" }
            return "No unread messages from \(terminalSafe(peerArgument)).\n"
        }
        var blocks: [String] = []
        for conversation in groupedByConversation(result.messages) {
            if let groupID = conversation[0].group {
                blocks.append(
                    groupBlock(
                        conversation, group: groups[groupID], id: groupID, peers: peers,
                        now: now, zone: zone, style: style))
                continue
            }
            let peerID = conversation[0].peer
            let header: String
            let label: String
            if let peer = peers[peerID] {
                header = HistoryView.header(peer, style: style)
                label = truncated(PeerText.nameOrKeyTag(peer), to: 24)
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

    /// A group conversation's messages under `#name`, each with its sender's name, as
    /// `history` of the group shows them.
    static func groupBlock(
        _ messages: [MessageInfo], group: GroupInfo?, id: String, peers: [String: PeerInfo],
        now: Timestamp, zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        var senders: [String: String] = [:]
        for (peerID, peer) in peers {
            senders[peerID] = truncated(PeerText.nameOrKeyTag(peer), to: 24)
        }
        let header: String
        if let group {
            header = HistoryView.groupHeader(group, style: style)
            senders.merge(HistoryView.senderLabels(group, width: 24)) { _, member in member }
        } else {
            header = style.bold("#" + truncated(id, to: 64)) + "\n"
        }
        return header
            + HistoryView.messageLines(
                messages, theirLabel: "?", now: now, zone: zone, style: style, senders: senders)
    }

    /// The messages of each conversation (a group's, else a peer's), conversations in order
    /// of first appearance, messages in the order given (oldest first).
    static func groupedByConversation(_ messages: [MessageInfo]) -> [[MessageInfo]] {
        var conversations: [[MessageInfo]] = []
        var index: [String: Int] = [:]
        for message in messages {
            let key = message.group.map { "#" + $0 } ?? message.peer
            if let position = index[key] {
                conversations[position].append(message)
            } else {
                index[key] = conversations.count
                conversations.append([message])
            }
        }
        return conversations
    }
}
