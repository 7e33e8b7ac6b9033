import LanChatControl

/// The key-change warning of `who` and `status` (PRODUCT.md §6): a marker beside the new
/// key's name and one line per change, up to `shownChanges`; past them one line counts the
/// rest (found by QA: a host making new keys under known names added a line each, 57 in
/// an afternoon, and `status` was all warnings). `--json` lists every one.
package enum KeyChangeText {
    package static let marker = "!"
    package static let shownChanges = 5

    package static func warnings(
        _ changes: [KeyChangeInfo], alerts: [IdentityAlertInfo] = [], style: TextStyle
    ) -> String {
        var lines = alerts.map { style.red("\(marker) WARNING: \(terminalSafe($0.warning))") }
        lines += changes.prefix(shownChanges).map {
            style.yellow("\(marker) warning: \(terminalSafe($0.warning))")
        }
        if changes.count > shownChanges {
            let more = changes.count - shownChanges
            lines.append(
                style.yellow(
                    "\(marker) warning: \(more) more new key\(more == 1 ? "" : "s") under the name of a known peer (marked \(marker) in 'lanchat who --all'; --json lists every one)"
                ))
        }
        return lines.map { $0 + "\n" }.joined()
    }
}
