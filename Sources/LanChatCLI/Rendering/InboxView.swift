import LanChatControl

/// Text output of `lanchat inbox`: one line per conversation, newest activity first (the
/// daemon's order): presence dot, name (alias), unread count, a preview of the last message
/// and its smart time. A group conversation shows `#` for the dot, the group's name, and the
/// sender's name before an incoming preview. An empty inbox says how to start a conversation.
package enum InboxView {
    /// Columns of message text a preview shows, `…` included.
    package static let previewLength = 60

    /// `archivedCount`: for an empty inbox, how many conversations are archived (not "no
    /// conversations yet"); `requestCount`: how many message requests wait, said after the
    /// conversations or instead of them.
    /// `width`: the terminal's columns; previews are cut so that each line fits (nil for a
    /// pipe or a file).
    package static func render(
        _ result: InboxResult, query: String?, archived: Bool, archivedCount: Int = 0,
        requestCount: Int = 0, peers: [String: PeerInfo] = [:], now: Timestamp,
        zone: any UTCOffsetProvider,
        style: TextStyle, width: Int? = nil
    ) -> String {
        guard !result.conversations.isEmpty else {
            return emptyHint(
                query: query, archived: archived, archivedCount: archivedCount,
                requestCount: requestCount)
        }
        let unreadWidth = result.conversations.map { Self.unreadText($0).count }.max() ?? 0
        let times = result.conversations.map {
            SmartTime.format($0.lastMessage?.createdAt ?? $0.updatedAt, now: now, zone: zone)
        }
        let timeWidth = times.map { DisplayWidth.of($0) }.max() ?? 0
        // What a line holds besides its name and preview: dot, unread count, time, the gaps.
        let fixedBesidesName = 2 + (unreadWidth > 0 ? 2 + unreadWidth : 0) + 4 + timeWidth
        // On a narrow terminal the name column gives up width too (a third of the line, and
        // no more than leaves the narrowest preview room; QA: 30 columns made 34-column lines).
        let nameColumns =
            width.map {
                max(minimumName, min(40, $0 / 3, $0 - fixedBesidesName - minimumPreview))
            } ?? 40
        // Two conversations under one name (a key that took an earlier key's name) are told
        // apart by their key tags.
        let titles = result.conversations.map(title)
        let shared = Set(
            Dictionary(titles.map { ($0, 1) }, uniquingKeysWith: +).filter { $0.value > 1 }.keys)
        let named = zip(zip(result.conversations, titles), times).map { pair, time in
            let (conversation, title) = pair
            return (
                name: truncated(
                    title
                        + (shared.contains(title)
                            ? conversation.peer.map { " (\($0.keyTag))" } ?? "" : ""),
                    columns: nameColumns),
                unread: Self.unreadText(conversation),
                time: time,
                conversation: conversation
            )
        }
        let nameWidth = named.map { DisplayWidth.of($0.name) }.max() ?? 0
        let fixed = fixedBesidesName + nameWidth
        let budget = width.map { max(minimumPreview, $0 - fixed) }
        let rows = named.map { row in
            let length = previewLength(row.conversation, former: peers, within: budget)
            // Plain first: its width aligns the time column, colour or not.
            return (
                row: row, length: length,
                width: DisplayWidth.of(
                    preview(row.conversation, former: peers, style: .plain, length: length))
            )
        }
        let previewWidth = rows.map(\.width).max() ?? 0
        return rows.map { (row, length, width) in
            let conversation = row.conversation
            let (dot, paint) =
                conversation.peer.map { presenceDot($0.presence, style: style) }
                ?? ("#", style.dim)
            let namePadding = String(
                repeating: " ", count: max(0, nameWidth - DisplayWidth.of(row.name)))
            let unreadPadding = String(repeating: " ", count: unreadWidth - row.unread.count)
            var line = paint(dot) + " " + style.bold(row.name) + namePadding
            if unreadWidth > 0 { line += "  " + unreadPadding + style.bold(row.unread) }
            let previewPadding = String(repeating: " ", count: max(0, previewWidth - width))
            line +=
                "  " + preview(conversation, former: peers, style: style, length: length)
                + previewPadding
            line += "  " + style.dim(row.time)
            return line + "\n"
        }.joined() + requestsFooter(requestCount, style: style)
    }

    /// The message requests kept out of the inbox, after its lines.
    private static func requestsFooter(_ count: Int, style: TextStyle) -> String {
        guard count > 0 else { return "" }
        let requests = count == 1 ? "message request waits" : "message requests wait"
        return style.dim("\(count) \(requests): lanchat contacts") + "\n"
    }

    /// The narrowest a preview gets on a narrow terminal (the line wraps instead): "You: ",
    /// two columns of text and a mark.
    static let minimumPreview = 10

    /// The narrowest the name column gets on a narrow terminal.
    static let minimumName = 6

    private static func unreadText(_ conversation: ConversationInfo) -> String {
        conversation.unread > 0 ? "\(conversation.unread)" : ""
    }

    /// Columns of message text that keep `conversation`'s preview within `budget` columns
    /// (`previewLength` when there is no budget or it fits).
    private static func previewLength(
        _ conversation: ConversationInfo, former: [String: PeerInfo], within budget: Int?
    ) -> Int {
        let whole = DisplayWidth.of(preview(conversation, former: former, style: .plain))
        guard let budget, whole > budget, let text = conversation.lastMessage?.text else {
            return previewLength
        }
        // The preview is its text and a frame ("You: " and a mark, or a sender's name).
        let frame = whole - DisplayWidth.of(truncated(text, columns: previewLength))
        return max(2, budget - frame)
    }

    /// `●` online, `○` offline, `◌` discovering, with the colour `who` uses.
    package static func presenceDot(_ presence: Presence, style: TextStyle) -> (
        String, (String) -> String
    ) {
        switch presence {
        case .online: return ("●", style.green)
        case .offline: return ("○", style.dim)
        case .discovering: return ("◌", style.yellow)
        }
    }

    /// A 1:1 conversation's peer name (alias), or a group's name.
    package static func title(_ conversation: ConversationInfo) -> String {
        if let group = conversation.group { return group.name }
        return conversation.peer.map(PeerText.nameWithAliasOrKeyTag) ?? ""
    }

    /// The preview of a conversation's last message; in a group, an incoming one is
    /// prefixed with its sender's name (`former`: senders no longer members, by id).
    static func preview(
        _ conversation: ConversationInfo, former: [String: PeerInfo] = [:], style: TextStyle,
        length: Int = previewLength
    ) -> String {
        let text = preview(conversation.lastMessage, style: style, length: length)
        guard let group = conversation.group, let message = conversation.lastMessage,
            message.direction == .incoming
        else { return text }
        let name =
            HistoryView.senderLabels(group, width: 20, former: former)[
                message.sender ?? message.peer]
            ?? String(message.peer.prefix(8))
        return style.dim(name + ":") + " " + text
    }

    /// The last message on one line: at most `previewLength` characters of its text (cut
    /// between characters, never inside an escape, `…` marking the cut), line breaks shown as
    /// spaces; an own message gets `You: ` before and its status mark after.
    package static func preview(
        _ message: MessageInfo?, style: TextStyle, length: Int = previewLength
    ) -> String {
        guard let message else { return style.dim("(no messages)") }
        // From the first thing written: leading blank lines and tabs would show as a gap
        // (found by QA).
        let text = truncated(
            String(message.text.drop { $0.isWhitespace || $0.isNewline }), columns: length)
        guard message.direction == .outgoing else { return text }
        // A group message's mark counts its members, as in `history` (found by QA: only
        // "✓✓" stood for "delivered to 2 of 2, read by 1").
        let groupMark = HistoryView.groupMark(message, style: style)
        let mark = (groupMark ?? statusMark(message.status, style: style)).map { " " + $0 } ?? ""
        return style.dim("You:") + " " + text + mark
    }

    /// The short marks of `history` without the failure reason: `…` `✓` `✓✓` `✓✓ read` `✗`.
    package static func statusMark(_ status: MessageStatus?, style: TextStyle) -> String? {
        switch status {
        case nil: return nil
        case .queued: return style.dim("…")
        case .sent: return style.dim("✓")
        case .delivered: return "✓✓"
        case .read: return style.blue("✓✓ read")
        case .failed: return style.red("✗")
        }
    }

    static func emptyHint(query: String?, archived: Bool, archivedCount: Int, requestCount: Int)
        -> String
    {
        if let query {
            return
                "No \(archived ? "archived " : "")conversation matches '\(terminalSafe(query))'.\n"
        }
        if archived { return "No archived conversations.\n" }
        // A request is kept out of the inbox until accepted; an empty inbox that hides one
        // says so (found by QA: "No conversations yet" with a request waiting).
        if requestCount > 0 {
            let requests = requestCount == 1 ? "message request waits" : "message requests wait"
            return "No conversations in the inbox; \(requestCount) \(requests): lanchat contacts\n"
        }
        if archivedCount > 0 {
            let conversations = archivedCount == 1 ? "conversation is" : "conversations are"
            return "No conversations in the inbox; \(archivedCount) \(conversations) archived: "
                + "lanchat inbox --archived\n"
        }
        return "No conversations yet. Start one with: lanchat send PEER TEXT\n"
            + "'lanchat who' lists the peers online.\n"
    }
}
