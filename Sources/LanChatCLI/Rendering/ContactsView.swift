import LanChatControl

/// Text output of `lanchat contacts`: contacts, blocked peers and message requests.
package enum ContactsView {
    package static func render(
        _ result: ContactsResult, now: Timestamp, zone: any UTCOffsetProvider, style: TextStyle
    ) -> String {
        var text = ""
        if result.contacts.isEmpty {
            text += "No contacts yet: 'lanchat add NAME ID', or send someone a message.\n"
        } else {
            var table = TextTable(header: ["CONTACT", "KEY", "PRESENCE", "TRUST"])
            for peer in result.contacts {
                let (presence, presenceColor) = PeerText.presence(peer, style: style)
                let (trust, trustColor) = PeerText.trust(peer.trust, style: style)
                table.append([
                    .init(truncated(PeerText.nameCell(peer), to: 40), paint: style.bold),
                    .init(terminalSafe(peer.keyTag), paint: style.cyan),
                    .init(presence, paint: presenceColor), .init(trust, paint: trustColor),
                ])
            }
            text += table.render(style: style)
        }
        if !result.blocked.isEmpty {
            var table = TextTable(header: ["BLOCKED", "KEY"])
            for peer in result.blocked {
                table.append([
                    .init(truncated(PeerText.nameCell(peer), to: 40)),
                    .init(terminalSafe(peer.keyTag), paint: style.cyan),
                ])
            }
            text += "\n" + table.render(style: style)
        }
        if !result.requests.isEmpty {
            var table = TextTable(header: ["REQUEST FROM", "KEY", "MESSAGES", "SINCE", "FIRST"])
            for request in result.requests {
                table.append([
                    .init(
                        truncated(PeerText.nameCell(request.peer), to: 40), paint: style.bold),
                    .init(terminalSafe(request.peer.keyTag), paint: style.cyan),
                    .init("\(request.count)"),
                    .init(SmartTime.format(request.receivedAt, now: now, zone: zone)),
                    .init(truncated(request.firstMessage?.text ?? "-", to: 60)),
                ])
            }
            text += "\n" + table.render(style: style)
            text +=
                "'lanchat accept PEER' moves a request into the inbox; 'lanchat block PEER' drops it.\n"
        }
        return text
    }

    /// `alias`'s confirmation, naming the peer as it was before the alias:
    /// `bob (ACRG-JVE2) is now called Robert.`
    package static func aliasChanged(_ peer: PeerInfo) -> String {
        var unaliased = peer
        unaliased.alias = nil
        let label = label(unaliased)
        guard let alias = peer.alias else { return "\(label) has no alias now.\n" }
        return "\(label) is now called \(terminalSafe(alias)).\n"
    }

    /// `name (alias) (KEY-TAG)`, safe for the terminal.
    package static func label(_ peer: PeerInfo) -> String {
        let name = PeerText.nameWithAlias(peer)
        return name.isEmpty
            ? terminalSafe(peer.keyTag)
            : "\(truncated(name, to: 40)) (\(terminalSafe(peer.keyTag)))"
    }
}
