import LanChatControl

/// Text output of `lanchat history`: a header naming the peer, a line saying whether older
/// messages exist, then the page oldest first with a separator before each new local day.
package enum HistoryView {
    /// `paged`: the page was asked for with `--before` or `--after`, so an empty one is an
    /// empty range, not an empty conversation.
    /// `peers`: in a group, senders that are no longer members, by id (the group's member
    /// list names the others).
    package static func render(
        _ result: HistoryResult, paged: Bool = false, peers: [String: PeerInfo] = [:],
        now: Timestamp, zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        if let group = result.group {
            return renderGroup(
                result, group, paged: paged, peers: peers, now: now, zone: zone, style: style)
        }
        let peer = result.peer
        return header(peer, style: style)
            + pageLines(
                result, paged: paged, argument: peer.keyTag, style: style,
                messages: {
                    messageLines(
                        $0, theirLabel: truncated(PeerText.nameOrKeyTag(peer), to: 24), now: now,
                        zone: zone, style: style)
                })
    }

    /// What follows a conversation's header: a line saying whether older messages exist
    /// (how to page to them: `lanchat history ARGUMENT --before ID`), then the messages, and
    /// after a page that is not the latest, how to page on to newer ones (`--after ID`); or
    /// why there are none (an empty range, or a conversation with nothing yet).
    /// `canSend`: false in a group we are no longer in, where `send` would fail.
    static func pageLines(
        _ result: HistoryResult, paged: Bool, argument: String, style: TextStyle,
        canSend: Bool = true, messages: ([MessageInfo]) -> String
    ) -> String {
        let shown = terminalSafe(argument)
        let start = style.dim("(nothing older: this is the start of the conversation)")
        guard let first = result.messages.first else {
            // An empty page before the first message says so too (found by QA).
            if paged && !result.hasOlder { return start + "\nNo messages in this range.\n" }
            if result.hasOlder || paged { return "No messages in this range.\n" }
            return canSend
                ? "No messages yet. Send one: lanchat send \(shown) TEXT\n" : "No messages.\n"
        }
        let older =
            result.hasOlder
            ? style.dim("(older messages: lanchat history \(shown) --before \(first.id))")
            : start
        var text = older + "\n" + messages(result.messages)
        if result.hasNewer, let last = result.messages.last {
            text +=
                style.dim("(newer messages: lanchat history \(shown) --after \(last.id))") + "\n"
        }
        return text
    }

    /// The messages, oldest first, with a separator before each new local day: the body of
    /// `history`, and of each conversation `read` prints.
    /// `senders`: in a group, each member's label by peer id (an incoming message shows its
    /// sender's name instead of `theirLabel`).
    package static func messageLines(
        _ messages: [MessageInfo], theirLabel: String, now: Timestamp,
        zone: any UTCOffsetProvider, style: TextStyle, senders: [String: String] = [:]
    ) -> String {
        var text = ""
        let today = LocalDateTime(now, in: zone)
        // Columns as the terminal draws them (found by QA: a CJK name, two columns a
        // character, pushed its text right of the others' and under-indented its lines),
        // and only as wide as the labels of the messages shown (`read` passed every peer).
        let labels = messages.map { message in
            message.direction == .outgoing
                ? ownLabel : message.sender.flatMap { senders[$0] } ?? theirLabel
        }
        let labelWidth = labels.map(DisplayWidth.of).max() ?? 0
        var currentDay: Int?
        for (message, label) in zip(messages, labels) {
            let local = LocalDateTime(message.createdAt, in: zone)
            if local.dayNumber != currentDay {
                currentDay = local.dayNumber
                text += style.dim("── \(SmartTime.dayHeading(local, today: today)) ──") + "\n"
            }
            let paddedLabel =
                label + String(repeating: " ", count: labelWidth - DisplayWidth.of(label))
            let prefix = SmartTime.clock(local) + "  " + paddedLabel + "  "
            let indent = String(repeating: " ", count: DisplayWidth.of(prefix))
            let body = displayable(message.text).split(
                separator: "\n", omittingEmptySubsequences: false
            )
            .joined(separator: "\n" + indent)
            let paintedLabel =
                message.direction == .outgoing ? style.dim(paddedLabel) : style.bold(paddedLabel)
            var line = style.dim(SmartTime.clock(local)) + "  " + paintedLabel + "  " + body
            if message.direction == .outgoing, let mark = statusMark(message, style: style) {
                line += "  " + mark
            }
            text += line + "\n"
        }
        return text
    }

    static let ownLabel = "You"

    /// A group conversation: `#name  N members`, then the messages with each sender's name
    /// and, on own ones, how many members have them (`✓✓ 2/3`).
    static func renderGroup(
        _ result: HistoryResult, _ group: GroupInfo, paged: Bool, peers: [String: PeerInfo],
        now: Timestamp, zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        groupHeader(group, style: style)
            + pageLines(
                result, paged: paged, argument: "'#\(group.name)'", style: style,
                canSend: group.left != true,
                messages: {
                    messageLines(
                        $0, theirLabel: "?", now: now, zone: zone, style: style,
                        senders: senderLabels(group, width: 24, former: peers))
                })
    }

    /// A group conversation's header line: `#name  N members`, and whether we are out of it
    /// (found by QA: a group we had left read as one we could write to).
    static func groupHeader(_ group: GroupInfo, style: TextStyle) -> String {
        style.bold("#" + truncated(group.name, to: 64)) + "  "
            + style.dim(GroupText.memberCount(group.members.count))
            + (group.left == true ? "  " + style.dim("(you are no longer a member)") : "") + "\n"
    }

    /// Each member's label by peer id (alias, else name, else key tag), at most `width`.
    /// `former`: senders no longer members, labelled the same way.
    /// Two senders with one label (a member that named itself as another is named) are told
    /// apart by their key tags (found by QA: a member renamed `bob` read as the real bob).
    package static func senderLabels(
        _ group: GroupInfo, width: Int, former: [String: PeerInfo] = [:]
    ) -> [String: String] {
        var peers: [String: PeerInfo] = [:]
        for peer in Array(former.values) + group.members { peers[peer.id] = peer }
        let counts = Dictionary(
            peers.values.map { (PeerText.nameOrKeyTag($0).lowercased(), 1) }, uniquingKeysWith: +)
        var senders: [String: String] = [:]
        for (id, peer) in peers {
            let label = PeerText.nameOrKeyTag(peer)
            guard counts[label.lowercased(), default: 0] > 1, label != peer.keyTag else {
                senders[id] = truncated(label, to: width)
                continue
            }
            let tag = " (" + peer.keyTag + ")"
            senders[id] = truncated(label, to: max(1, width - tag.count)) + tag
        }
        return senders
    }

    /// `✓✓ 2/3`: of an own group message's recipients, how many have it (delivered or read),
    /// or have read it when all did; nil for other messages. While none has it, the tick is
    /// the 1:1 one for where the copies are (`… 0/3` queued, `✓ 0/3` sent): a double tick
    /// says "delivered" (found by QA: `✓✓ 0/2`).
    package static func groupMark(_ message: MessageInfo, style: TextStyle) -> String? {
        guard let recipients = message.recipients, !recipients.isEmpty else { return nil }
        let total = recipients.count
        let read = recipients.filter { $0.status == .read }.count
        let have = recipients.filter { $0.status == .delivered || $0.status == .read }.count
        let failed = recipients.filter { $0.status == .failed }.count
        let tick = have > 0 ? "✓✓" : recipients.contains { $0.status == .sent } ? "✓" : "…"
        var mark = read == total ? style.blue("✓✓ read") : "\(tick) \(have)/\(total)"
        if read > 0 && read < total { mark += style.dim(" (\(read) read)") }
        if failed > 0 {
            // The reason, as a 1:1 message's `✗ failed: reason` (found by QA: a group's never
            // said why).
            let reason = message.failReason.map { ": " + truncated($0, to: 80) } ?? ""
            mark += " " + style.red("✗ \(failed) failed" + reason)
        }
        return mark
    }

    /// `name (alias)  KEY-TAG  presence`, the line above a conversation's messages.
    package static func header(_ peer: PeerInfo, style: TextStyle) -> String {
        let (presence, presenceColor) = PeerText.presence(peer, style: style)
        let name = PeerText.nameWithAlias(peer)
        // A peer with no name yet: its key tag alone, not a blank before it.
        return (name.isEmpty ? "" : style.bold(truncated(name, to: 80)) + "  ")
            + style.cyan(terminalSafe(peer.keyTag)) + "  " + presenceColor(presence) + "\n"
    }

    /// `…` queued, `✓` sent, `✓✓` delivered, `✓✓ read`, `✗ failed: reason`.
    package static func statusMark(_ message: MessageInfo, style: TextStyle) -> String? {
        if let mark = groupMark(message, style: style) { return mark }
        switch message.status {
        case nil: return nil
        case .queued: return style.dim("…")
        case .sent: return style.dim("✓")
        case .delivered: return "✓✓"
        case .read: return style.blue("✓✓ read")
        case .failed:
            let reason = message.failReason.map { truncated($0, to: 80) } ?? "unknown reason"
            return style.red("✗ failed: \(reason)")
        }
    }

    /// Message text as it may reach a terminal: `terminalSafeBlock` (newlines and tabs kept,
    /// CR LF shown as LF, every other control and bidirectional control escaped).
    package static func displayable(_ text: String) -> String {
        terminalSafeBlock(text)
    }
}
