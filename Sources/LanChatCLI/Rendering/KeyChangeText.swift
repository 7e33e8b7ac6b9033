import LanChatControl

/// The key-change warning of `who` and `status` (PRODUCT.md §6): a marker beside the new
/// key's name and one line per change.
package enum KeyChangeText {
    package static let marker = "!"

    package static func warnings(
        _ changes: [KeyChangeInfo], alerts: [IdentityAlertInfo] = [], style: TextStyle
    ) -> String {
        (alerts.map { style.red("\(marker) WARNING: \(terminalSafe($0.warning))") + "\n" }
            + changes.map { style.yellow("\(marker) warning: \(terminalSafe($0.warning))") + "\n" })
            .joined()
    }
}
