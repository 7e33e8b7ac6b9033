import LanChatControl

/// What `lanchat` prints on standard error for a failed command: `lanchat: <message>`, and
/// for a peer that matched nothing or several peers, the candidates with their key tags
/// (from the error's data) so the user can pick one.
package enum ErrorView {
    package static func render(_ error: ControlError) -> String {
        let text = "lanchat: \(terminalSafeError(error.message))\n"
        guard error.isPeerLookupFailure else { return text }
        let candidates = error.data?.candidates ?? []
        if candidates.isEmpty {
            // An ambiguity without candidates is a name that is a group's and a peer's (or two
            // groups'): its message says how to pick one, and the peer list would not help.
            // A group that matched nothing comes without a peer list: its message names
            // `lanchat groups`.
            guard error.isPeerNotFound, error.data?.candidates != nil else { return text }
            let groupsToo = error.message.hasPrefix("no peer or group")
            return text + "'lanchat who --all' lists the peers lanchatd knows"
                + (groupsToo ? ", 'lanchat groups' the groups.\n" : ".\n")
        }
        var table = TextTable(header: ["NAME", "KEY", "ID"])
        for candidate in candidates {
            table.append([
                .init(
                    truncated(
                        PeerText.nameWithAlias(candidate.name, alias: candidate.alias), to: 40)),
                .init(terminalSafe(candidate.keyTag)),
                .init(truncated(candidate.id, to: 60)),
            ])
        }
        let indented = table.render(style: .plain)
            .split(separator: "\n").map { "  " + $0 + "\n" }.joined()
        // Nothing matched: the candidates are the closest names, not matches.
        if error.isPeerNotFound {
            return text + "Did you mean:\n" + indented
        }
        let hint = candidates.count > 1 ? "Give the key tag or the id to choose one.\n" : ""
        return text + indented + hint
    }
}
