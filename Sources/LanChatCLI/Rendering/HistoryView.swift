import LanChatControl

/// Text output of `lanchat history`: a header naming the peer, a line saying whether older
/// messages exist, then the page oldest first with a separator before each new local day.
package enum HistoryView {
    package static func render(
        _ result: HistoryResult, now: Timestamp, zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        let peer = result.peer
        var text = header(peer, style: style)
        guard let first = result.messages.first else {
            if result.hasOlder {
                return text + "No messages in this range.\n"
            }
            return text
                + "No messages yet. Send one: lanchat send \(terminalSafe(peer.keyTag)) TEXT\n"
        }
        text +=
            result.hasOlder
            ? style.dim(
                terminalSafe(
                    "(older messages: lanchat history \(peer.keyTag) --before \(first.id))"))
                + "\n"
            : style.dim("(nothing older: this is the start of the conversation)") + "\n"

        return text
            + messageLines(
                result.messages, theirLabel: truncated(peer.displayName, to: 24), now: now,
                zone: zone, style: style)
    }

    /// The messages, oldest first, with a separator before each new local day: the body of
    /// `history`, and of each conversation `read` prints.
    package static func messageLines(
        _ messages: [MessageInfo], theirLabel: String, now: Timestamp,
        zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        var text = ""
        let today = LocalDateTime(now, in: zone)
        let labelWidth = max(theirLabel.count, ownLabel.count)
        var currentDay: Int?
        for message in messages {
            let local = LocalDateTime(message.createdAt, in: zone)
            if local.dayNumber != currentDay {
                currentDay = local.dayNumber
                text += style.dim("── \(SmartTime.dayHeading(local, today: today)) ──") + "\n"
            }
            let label = message.direction == .outgoing ? ownLabel : theirLabel
            let paddedLabel = label + String(repeating: " ", count: labelWidth - label.count)
            let prefix = SmartTime.clock(local) + "  " + paddedLabel + "  "
            let indent = String(repeating: " ", count: prefix.count)
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

    /// `name (alias)  KEY-TAG  presence`, the line above a conversation's messages.
    package static func header(_ peer: PeerInfo, style: TextStyle) -> String {
        let (presence, presenceColor) = PeerText.presence(peer, style: style)
        return style.bold(truncated(PeerText.nameWithAlias(peer), to: 80)) + "  "
            + style.cyan(terminalSafe(peer.keyTag)) + "  " + presenceColor(presence) + "\n"
    }

    /// `…` queued, `✓` sent, `✓✓` delivered, `✓✓ read`, `✗ failed: reason`.
    package static func statusMark(_ message: MessageInfo, style: TextStyle) -> String? {
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
