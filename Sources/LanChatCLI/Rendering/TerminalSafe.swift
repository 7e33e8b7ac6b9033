import LanChatControl

// The rendering layer's one way to put text that lanchat did not write itself (names,
// aliases, status texts, messages, addresses, daemon error messages) on a terminal. Every
// text view goes through these three or `truncated`, which apply `TerminalText`'s rule:
// controls, DEL and bidirectional controls become visible escapes such as `\u{1B}`.
// `--json` output does not: it keeps the exact text.

/// A one-line field: line feeds, carriage returns and tabs shown as spaces, every other
/// control escaped.
package func terminalSafe(_ text: String) -> String {
    TerminalText.line(text)
}

/// Message text: line feeds and tabs kept, CR LF shown as LF, every other control escaped.
package func terminalSafeBlock(_ text: String) -> String {
    TerminalText.block(text)
}

/// An error message: laid out as message text, with the invisible characters that make two
/// names look alike escaped as in a name (it quotes names).
package func terminalSafeError(_ text: String) -> String {
    TerminalText.error(text)
}
