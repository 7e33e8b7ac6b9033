import LanChatControl

/// The text line `lanchat watch` prints for one event: local clock time, then what happened,
/// e.g. `12:03 bob: deploy done`, `12:03 ✓✓ delivered to bob: deploy done`,
/// `12:04 bob is online`. Message text is one line here (line breaks as spaces).
package enum WatchView {
    /// Characters of message text shown after a status change (the text was seen before).
    static let statusPreviewLength = 60

    /// `names` maps peer ids to the last peer object seen, for the events that carry only a
    /// message (its `peer` is an id); `groupNames` maps group ids to names, for the
    /// `message.status` events of own group messages, which carry the group's id only.
    /// `now`: an event of another day (a replay) is stamped with its day too (found by QA:
    /// one of last year read as one of today).
    package static func line(
        _ event: EventInfo, names: [String: PeerInfo], groupNames: [String: String] = [:],
        now: Timestamp, zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        let time = style.dim(
            SmartTime.stamp(LocalDateTime(event.at, in: zone), today: LocalDateTime(now, in: zone)))
        return time + " "
            + describe(event, names: names, groupNames: groupNames, style: style) + "\n"
    }

    static func describe(
        _ event: EventInfo, names: [String: PeerInfo], groupNames: [String: String] = [:],
        style: TextStyle
    ) -> String {
        let peerID = event.peer?.id ?? event.message?.peer
        let known = event.peer ?? peerID.flatMap { names[$0] }
        let name = style.bold(
            known.map { truncated(PeerText.nameOrKeyTag($0), to: 40) }
                ?? peerID.map { truncated($0, to: 12) } ?? "someone")
        switch event.type {
        case .messageReceived:
            // A replayed event whose message was removed since (`remove --purge`) has none.
            let text = event.message.map { terminalSafe($0.text) } ?? style.dim("(deleted since)")
            let group = event.group.map { style.cyan("#" + truncated($0.name, to: 40)) + " " }
            return (group ?? "") + name + ": " + text
        case .messageStatus:
            guard let message = event.message else {
                return "a message with " + name + " changed status " + style.dim("(deleted since)")
            }
            let preview = truncated(message.text, to: statusPreviewLength)
            // A member's copy of a group message names its group (found by QA).
            let groupName = event.group?.name ?? message.group.flatMap { groupNames[$0] }
            let who =
                name + (groupName.map { " in " + style.cyan("#" + truncated($0, to: 40)) } ?? "")
            switch message.status {
            case .queued, nil: return style.dim("… queued for ") + who + ": " + preview
            case .sent: return style.dim("✓ sent to ") + who + ": " + preview
            case .delivered: return "✓✓ delivered to " + who + ": " + preview
            case .read: return style.blue("✓✓ read by ") + who + ": " + preview
            case .failed:
                let reason = message.failReason.map { truncated($0, to: 80) } ?? "unknown reason"
                return style.red("✗ failed to ") + who + " (" + reason + "): " + preview
            }
        case .peerPresence:
            guard let peer = event.peer else { return "a peer changed presence" }
            // Online before and after, only the name differs: a peer that dialled in says
            // its name in its first HELLO (or renamed itself). "is online" twice read oddly
            // (found by QA).
            if let before = names[peer.id], before.presence == .online, peer.presence == .online,
                before.name != peer.name, before.status == peer.status,
                before.statusText == peer.statusText
            {
                // The name the peer gives itself changed: an alias of ours stays, so it is
                // said beside the old name (found by QA: "Cee is now called Cee").
                let was =
                    before.name.isEmpty
                    ? terminalSafe(peer.keyTag) : truncated(terminalSafe(before.name), to: 40)
                let called = truncated(terminalSafe(peer.name), to: 40)
                guard let alias = peer.alias else {
                    return style.bold(was) + " now calls itself " + style.bold(called)
                }
                return style.bold(truncated(terminalSafe(alias), to: 40)) + " (" + was
                    + ") now calls itself " + style.bold(called)
            }
            let (presence, paint) = PeerText.presence(peer, style: style)
            var text = name + " is " + paint(presence)
            if peer.presence == .online, !peer.statusText.isEmpty {
                text += ": " + truncated(peer.statusText, to: 60)
            }
            return text
        case .peerTyping:
            return name + (event.typing == false ? " stopped typing" : " is typing…")
        case .peerNew:
            guard let peer = event.peer, !peer.displayName.isEmpty else {
                return "new peer " + name
            }
            return "new peer " + name + " " + style.cyan(terminalSafe(peer.keyTag))
        case .peerKeyMismatch:
            let tag = event.peer.map { " (now " + terminalSafe($0.keyTag) + ")" } ?? ""
            return style.red("warning: ") + name + "'s key changed" + tag
                + "; check it with lanchat verify"
        case .conversationRead:
            if let group = event.group ?? event.conversation?.group {
                return "conversation " + style.cyan("#" + truncated(group.name, to: 40))
                    + " marked read"
            }
            return "conversation with " + name + " marked read"
        case .groupChanged:
            // "from": the member the change came from, who made it or passed it on (a GROUP
            // frame names no author, PROTOCOL.md §9.7; found by QA).
            guard let group = event.group else { return "a group changed, from " + name }
            let shown = "#" + truncated(group.name, to: 40)
            // A pending request says so, as `groups` does (found by QA: only --json did).
            let request =
                group.request == true ? "; a request: lanchat accept \(shown)" : ""
            return "group " + style.cyan(shown) + " changed"
                + " (\(GroupText.memberCount(group.members.count))), from " + name + request
        case .requestNew:
            return "message request from " + name
        }
    }
}
