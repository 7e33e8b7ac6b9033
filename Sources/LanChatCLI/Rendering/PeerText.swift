import LanChatControl

/// How a peer is named and its presence shown in text output, shared by the views.
package enum PeerText {
    /// `name (alias)` when an alias is set, else the display name.
    package static func nameWithAlias(_ name: String, alias: String?) -> String {
        guard let alias, !alias.isEmpty, alias != name else { return name }
        // A peer added by id has no name until its first HELLO: its alias alone.
        guard !name.isEmpty else { return alias }
        return "\(name) (\(alias))"
    }

    package static func nameWithAlias(_ peer: PeerInfo) -> String {
        nameWithAlias(peer.name, alias: peer.alias)
    }

    /// `nameWithAlias` for a table cell beside the key tag's: `-` rather than a blank for a
    /// peer with neither (added by id, its alias removed, before its first HELLO; QA found
    /// the blank cells).
    package static func nameCell(_ peer: PeerInfo) -> String {
        let shown = nameWithAlias(peer)
        return shown.isEmpty ? "-" : shown
    }

    /// `nameWithAlias` where nothing else names the peer (an inbox line): its key tag when
    /// it has neither.
    package static func nameWithAliasOrKeyTag(_ peer: PeerInfo) -> String {
        let shown = nameWithAlias(peer)
        return shown.isEmpty ? peer.keyTag : shown
    }

    /// The name a peer goes by (alias, else name), or its key tag while it has none (a peer
    /// met a moment ago, before its HELLO): never a blank. Not yet terminal-safe.
    package static func nameOrKeyTag(_ peer: PeerInfo) -> String {
        peer.displayName.isEmpty ? peer.keyTag : peer.displayName
    }

    /// `online`, `online, away`, `online, busy`, `offline`, `discovering`. Availability is
    /// shown only for online peers: an offline peer's last choice says nothing now.
    package static func presence(_ peer: PeerInfo, style: TextStyle) -> (String, (String) -> String)
    {
        switch peer.presence {
        case .online:
            switch peer.status {
            case .available: return ("online", style.green)
            case .away: return ("online, away", style.yellow)
            case .busy: return ("online, busy", style.red)
            }
        case .offline: return ("offline", style.dim)
        case .discovering: return ("discovering", style.yellow)
        }
    }

    package static func trust(_ trust: Trust, style: TextStyle) -> (String, (String) -> String) {
        switch trust {
        case .verified: return ("verified", style.green)
        case .unverified: return ("unverified", { $0 })
        case .blocked: return ("blocked", style.red)
        }
    }
}
