/// The one rule for text that reaches a terminal or a log (lanchat(1), "Hostile text"): a
/// name, status text or message comes from a peer, or from whoever configured the daemon, and
/// must not drive the terminal (ESC and OSC sequences, BEL) nor reorder what is shown around
/// it (bidirectional controls, "Trojan Source").
///
/// Every scalar that `needsEscape` is shown as a visible escape in Swift's notation,
/// `\u{1B}`; nothing else changes, except the layout characters: message text keeps its line
/// feeds and tabs (CR LF becomes LF), and a one-line field (a name, a status text, a log line)
/// shows a line feed, carriage return or tab as one space, so it stays on its line. JSON
/// output is not for terminals and keeps the exact text.
///
/// It lives here because both the CLI's views and the daemon's log handler use it, and
/// LanChatControl is the module they share.
public enum TerminalText {
    /// C0 controls (U+0000–U+001F), DEL and C1 controls (U+007F–U+009F), and the
    /// bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `\u{1B}` for ESC: Swift's notation, upper-case hex without leading zeros.
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }

    /// Invisible characters that make two names look alike (`zw\u{200B}space` and `zwspace`,
    /// found by QA): zero-width space, soft hyphen, Mongolian vowel separator, word joiner
    /// and the invisible operators, zero-width no-break space, the combining grapheme joiner,
    /// the Hangul fillers and the blank Braille pattern (found by QA too: `x\u{3164}` beside
    /// `x`). Escaped in one-line fields only: in message text they have their uses (Thai and
    /// Khmer break lines at U+200B), and U+200C and U+200D, which join emoji and shape
    /// scripts, and the variation selectors, which choose an emoji's look, are left alone.
    public static func isInvisibleInName(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD, 0x034F, 0x115F, 0x1160, 0x180E, 0x200B, 0x2060...0x2064, 0x2800, 0x3164,
            0xFEFF, 0xFFA0:
            true
        default: false
        }
    }

    /// Whether `scalar` is shown escaped: in a one-line field, also when it is invisible.
    static func needsEscape(_ scalar: Unicode.Scalar, inLine: Bool) -> Bool {
        needsEscape(scalar) || (inLine && isInvisibleInName(scalar))
    }

    /// A one-line field (a name, a status text, a log line): line feeds, carriage returns and
    /// tabs become spaces, every other control, and each invisible character of
    /// `isInvisibleInName`, is escaped.
    public static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, inLine: true) })
        else { return text }
        return pieces(text, keepingLayout: false).joined()
    }

    /// Message text: as `line`, but line feeds and tabs are kept and CR LF becomes LF.
    public static func block(_ text: String) -> String {
        let layout: Set<Unicode.Scalar> = ["\n", "\t"]
        guard text.unicodeScalars.contains(where: { needsEscape($0) && !layout.contains($0) })
        else { return text }
        return pieces(text, keepingLayout: true).joined()
    }

    /// An error message: laid out as message text (a list of candidates is on lines of its
    /// own), with the invisible characters escaped as in a name, since the names it quotes
    /// are how the user tells two things apart (found by QA: `#tri\u{200B}o` and `#trio`
    /// read the same in "matches 2 groups").
    public static func error(_ text: String) -> String {
        let layout: Set<Unicode.Scalar> = ["\n", "\t"]
        guard
            text.unicodeScalars.contains(where: {
                needsEscape($0, inLine: true) && !layout.contains($0)
            })
        else { return text }
        return pieces(text, keepingLayout: true, escapingInvisible: true).joined()
    }

    /// The text as display pieces: each a character shown as it is, or one escape. A view that
    /// shortens text cuts between pieces, so it never shows half an escape. Invisible
    /// characters are escaped in one-line fields unless told otherwise.
    public static func pieces(
        _ text: String, keepingLayout: Bool, escapingInvisible: Bool? = nil
    ) -> [String] {
        let invisible = escapingInvisible ?? !keepingLayout
        var pieces: [String] = []
        pieces.reserveCapacity(text.utf8.count)
        for character in text {
            if keepingLayout && (character == "\n" || character == "\r\n" || character == "\t") {
                pieces.append(character == "\t" ? "\t" : "\n")
                continue
            }
            if !keepingLayout && ["\n", "\r\n", "\r", "\t"].contains(character) {
                pieces.append(" ")
                continue
            }
            let scalars = character.unicodeScalars
            guard scalars.contains(where: { needsEscape($0, inLine: invisible) }) else {
                pieces.append(String(character))
                continue
            }
            // Controls are characters of their own (grapheme rules GB4, GB5), except CR LF.
            for scalar in scalars {
                pieces.append(
                    needsEscape(scalar, inLine: invisible) ? escape(scalar) : String(scalar))
            }
        }
        return pieces
    }
}
