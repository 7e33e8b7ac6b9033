import LanChatControl

/// The checks `lanchat send` makes before anything reaches the daemon (PRODUCT.md §7): a
/// message is 1 to 65536 bytes of UTF-8, not only white space (or invisible characters) and
/// without U+0000 (which the daemon refuses too: stores and C strings end at it). Failures
/// are `badInput` (exit 65), so nothing is sent.
package enum MessageText {
    package static let maxBytes = 65_536

    /// Validates a message given as text (command-line words, or one `--lines` line).
    package static func validate(_ text: String) throws(ControlError) -> String {
        if text.isEmpty {
            throw .badInput("the message is empty")
        }
        if text.isBlankText {
            // Said as lanchat(1) says it (found by QA: "empty" for a message of spaces).
            throw .badInput("the message is only white space or invisible characters")
        }
        let size = text.utf8.count
        if size > maxBytes {
            throw .badInput(
                "the message is \(grouped(size)) bytes; the limit is \(grouped(maxBytes)) bytes")
        }
        if text.containsNUL {
            throw .badInput("the message contains U+0000 (NUL), which lanchat does not send")
        }
        return text
    }

    /// Decodes and validates standard input read as one message. Trailing line ends are
    /// dropped (`echo hi | lanchat send bob` sends `hi`), everything else is kept.
    package static func fromStandardInput(_ bytes: [UInt8]) throws(ControlError) -> String {
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: "\r")
        {
            end -= 1
        }
        guard let text = String(validating: bytes[0..<end], as: UTF8.self) else {
            throw .badInput("standard input is not valid UTF-8")
        }
        return try validate(text)
    }

    /// `65 536`: thousands grouped with a space, as the documentation writes limits.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(" ") }
            text.append(digit)
        }
        return text
    }
}
