/// Small text helpers of the doctor's parsers (the CLI links FoundationEssentials only).

/// `text` without leading and trailing spaces, tabs and line ends.
func trimmed<Text: StringProtocol>(_ text: Text) -> String {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = text.firstIndex(where: { !isBlank($0) }),
        let last = text.lastIndex(where: { !isBlank($0) })
    else { return "" }
    return String(text[first...last])
}

/// A permission mode as four octal digits, e.g. `0600`.
func octalMode(_ mode: UInt32) -> String {
    let digits = String(mode & 0o7777, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
