import LanChatControl

/// Text output of `lanchat status` and `lanchat presence`.
package enum StatusView {
    package static func render(_ status: StatusResult, style: TextStyle) -> String {
        var lines: [(String, String)] = []
        lines.append(("name", style.bold(terminalSafe(status.name))))
        lines.append(("id", terminalSafe(status.id)))
        lines.append(("key tag", style.cyan(terminalSafe(status.keyTag))))
        lines.append(("presence", presence(status, style: style)))
        lines.append(
            (
                "daemon",
                "lanchatd \(terminalSafe(status.version)), control API \(status.apiVersion), up "
                    + SmartTime.duration(seconds: status.uptimeSeconds)
            ))
        lines.append(
            (
                "listening",
                status.listening.isEmpty
                    ? "-" : terminalSafe(status.listening.joined(separator: ", "))
            )
        )
        lines.append(("avahi", avahi(status.avahi, style: style)))
        lines.append(("peers", "\(status.peersOnline) online"))
        lines.append(("queued", "\(status.queued)"))
        lines.append(("unread", status.unread > 0 ? style.bold("\(status.unread)") : "0"))
        lines.append(("socket", terminalSafe(status.socket)))
        lines.append(("data", terminalSafe(status.dataDir)))
        let width = lines.map(\.0.count).max() ?? 0
        var text = lines.map { label, value in
            label + String(repeating: " ", count: width - label.count) + "  " + value + "\n"
        }.joined()
        text += KeyChangeText.warnings(
            status.keyChanges, alerts: status.identityAlerts, style: style)
        if let reloadError = status.reloadError {
            text +=
                style.red(
                    "warning: the last reload failed, so the configuration file is not what "
                        + "runs: \(terminalSafe(reloadError))") + "\n"
        }
        if status.apiVersion != ControlAPI.version {
            text +=
                style.yellow(
                    "warning: lanchatd speaks control API \(status.apiVersion), this lanchat "
                        + "\(LanChatVersion.current) speaks \(ControlAPI.version)") + "\n"
        }
        return text
    }

    /// `away: in a meeting`, or just `available`.
    package static func presence(_ status: StatusResult, style: TextStyle) -> String {
        let word: String
        switch status.status {
        case .available: word = style.green("available")
        case .away: word = style.yellow("away")
        case .busy: word = style.red("busy")
        }
        return status.statusText.isEmpty
            ? word : "\(word): \(truncated(status.statusText, to: 128))"
    }

    /// The line `lanchat presence` prints after a change.
    package static func presenceChanged(_ status: StatusResult, style: TextStyle) -> String {
        "\(terminalSafe(status.name)) is now \(presence(status, style: style))\n"
    }

    private static func avahi(_ state: String, style: TextStyle) -> String {
        switch state {
        case "running": return style.green(state)
        case "connecting": return style.yellow(state) + " (waiting for avahi-daemon)"
        case "failed": return style.red(state) + " (see the lanchatd log)"
        case "disabled": return state + " (--no-mdns)"
        default: return terminalSafe(state)
        }
    }
}
