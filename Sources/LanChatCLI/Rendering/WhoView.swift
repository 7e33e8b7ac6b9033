import LanChatControl

/// Text output of `lanchat who`: one row per peer, or a hint when there is none.
package enum WhoView {
    /// `avahi`: the daemon's mDNS state (`status`), asked for when no peer is listed.
    package static func render(
        _ result: WhoResult, query: String?, all: Bool, now: Timestamp,
        zone: any UTCOffsetProvider, style: TextStyle, width: Int? = nil, avahi: String? = nil
    ) -> String {
        guard !result.peers.isEmpty else {
            return emptyHint(query: query, all: all, avahi: avahi)
                + KeyChangeText.warnings(
                    result.keyChanges, alerts: result.identityAlerts, style: style)
        }
        let changed = Set(result.keyChanges.map(\.peer.id) + result.identityAlerts.map(\.peer.id))
        // On a narrow terminal the address gives up width first, then the status text,
        // then the name; if that is not enough the address, the last seen, the status and
        // the trust are left out. The key tag, which tells peers of one name apart, and the
        // presence, which is what `who` is for, stay whole.
        var table = TextTable(
            header: ["NAME", "KEY", "PRESENCE", "STATUS", "TRUST", "LAST SEEN", "ADDRESS"],
            shrinkable: [
                (column: 6, minimum: 8), (column: 3, minimum: 8), (column: 0, minimum: 12),
            ],
            droppable: [6, 5, 3, 4])
        for peer in result.peers {
            let (presence, presenceColor) = PeerText.presence(peer, style: style)
            let (trust, trustColor) = PeerText.trust(peer.trust, style: style)
            table.append([
                .init(
                    (changed.contains(peer.id) ? KeyChangeText.marker + " " : "")
                        + truncated(PeerText.nameCell(peer), columns: 40), paint: style.bold),
                .init(terminalSafe(peer.keyTag), paint: style.cyan),
                .init(presence, paint: presenceColor),
                .init(peer.statusText.isEmpty ? "-" : truncated(peer.statusText, columns: 30)),
                .init(trust, paint: trustColor),
                .init(lastSeen(peer, now: now, zone: zone)),
                .init(truncated(address(peer), columns: 60), paint: style.dim),
            ])
        }
        return table.render(style: style, width: width)
            + KeyChangeText.warnings(
                result.keyChanges, alerts: result.identityAlerts, style: style)
    }

    static func lastSeen(_ peer: PeerInfo, now: Timestamp, zone: any UTCOffsetProvider) -> String {
        if peer.presence == .online { return "now" }
        guard let seen = peer.lastSeen else { return "never" }
        return SmartTime.format(seen, now: now, zone: zone)
    }

    static func address(_ peer: PeerInfo) -> String {
        guard let first = peer.addresses.first else { return "-" }
        return peer.addresses.count > 1 ? "\(first) +\(peer.addresses.count - 1)" : first
    }

    /// Where peers come from, as the daemon is now (found by QA: with --no-mdns the hint
    /// still spoke of mDNS, and lanchat(1) promises to say whether Avahi runs).
    static func emptyHint(query: String?, all: Bool, avahi: String? = nil) -> String {
        if let query {
            let wider = all ? "" : " Add --all to include offline peers."
            return "No peer matches '\(terminalSafe(query))'.\(wider)\n"
        }
        let headline =
            all
            ? "No peers known yet.\n"
            : "No peers online. 'lanchat who --all' also lists offline peers.\n"
        let staticPeers = "the addresses lanchatd was given with --peer HOST:PORT"
        let doctor = " 'lanchat doctor' says what stands in the way.\n"
        switch avahi {
        case "disabled":
            return headline
                + "lanchatd runs with --no-mdns: it looks for no peer on the LAN, and dials only "
                + staticPeers + " (and known peers' last addresses while messages wait for "
                + "them)." + doctor
        case "connecting", "failed":
            return headline
                + "Avahi is not running (lanchatd's mDNS is \(avahi ?? "")), so no peer is "
                + "found on the LAN; only " + staticPeers + " are dialled." + doctor
        case "running":
            return headline
                + "Peers are found over mDNS and at " + staticPeers
                + ", the way where multicast does not pass." + doctor
        default:
            return headline
                + "Peers are found over mDNS (unless lanchatd runs with --no-mdns) and at "
                + staticPeers + ", the way where multicast does not pass." + doctor
        }
    }
}
