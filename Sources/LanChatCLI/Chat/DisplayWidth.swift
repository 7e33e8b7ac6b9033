import CNcurses

#if canImport(Glibc)
    import Glibc
#endif

/// Columns a character takes on a terminal, by the C library's `wcwidth` (East Asian wide
/// characters and most emoji take 2, combining marks 0). `wcwidth` answers by LC_CTYPE, so
/// a UTF-8 one is made current first (the user's own when it is UTF-8, else C.UTF-8).
package enum DisplayWidth {
    private static let localeReady: Bool = {
        UTF8Locale.ensure()
        return true
    }()

    package static func of(_ character: Character) -> Int {
        _ = localeReady
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        let width = Int(lanchat_wcwidth(first.value))
        guard scalars.count > 1 else { return width < 0 ? 1 : width }
        // A sequence (a flag, a skin tone, a family joined by ZWJ) counts what ncurses places
        // for it, one scalar at a time: counted as one emoji, a row that fits here ran over
        // in ncurses and left characters behind (found by QA). An emoji presentation selector
        // makes a narrow symbol (❤) a wide emoji (❤️).
        var total = max(width, 1)
        for scalar in scalars.dropFirst() { total += max(0, Int(lanchat_wcwidth(scalar.value))) }
        return scalars.contains { $0.value == 0xFE0F } ? max(total, 2) : total
    }

    /// Whether `text` holds a character the terminal may draw narrower than ncurses places
    /// it (an emoji sequence): a screen showing one is drawn whole, or the difference leaves
    /// characters behind on the next partial update.
    package static func mayDisagree(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains { $0.value == 0x200D || $0.value == 0xFE0F }
            || text.contains { $0.unicodeScalars.count > 1 && of($0) > 1 }
    }

    package static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// `line` with each tab replaced by the spaces to the next multiple of `every` columns
    /// from its start: the screen knows every column it draws, where a terminal's tab stops
    /// count from the window's edge (found by QA: text after tabs was cut off or wrapped
    /// out of line).
    package static func expandingTabs(_ line: some StringProtocol, every: Int = 8) -> String {
        guard line.contains("\t") else { return String(line) }
        var expanded = ""
        var column = 0
        for character in line {
            if character == "\t" {
                let spaces = every - column % every
                expanded += String(repeating: " ", count: spaces)
                column += spaces
            } else {
                expanded.append(character)
                column += of(character)
            }
        }
        return expanded
    }

    /// `text` cut into rows of at most `width` columns, breaking at the last opportunity that
    /// fits: after a space (which goes), or beside a wide character (CJK is written without
    /// spaces and breaks between any two; found by QA: a run of it went whole to the next
    /// row); else between any characters. Never an empty list.
    package static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(width, 2)
        var rows: [String] = []
        var row: [Character] = []
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > width, !row.isEmpty {
                // The space that does not fit is the break itself.
                if character == " " {
                    rows.append(String(row))
                    row = []
                    used = 0
                    continue
                }
                let space = row.lastIndex(of: " ")
                let wide = columns == 2 ? row.count : row.lastIndex { of($0) == 2 }
                if let wide, space.map({ wide > $0 }) ?? true {
                    // Before `wide` (the character that does not fit, or the last wide one
                    // that did): nothing is dropped.
                    let cut = wide == row.count ? wide : wide + 1
                    rows.append(String(row[..<cut]))
                    row = Array(row[cut...])
                    used = of(String(row))
                } else if let space, space > 0 {
                    rows.append(String(row[..<space]))
                    row = Array(row[(space + 1)...])
                    used = of(String(row))
                } else {
                    rows.append(String(row))
                    row = []
                    used = 0
                }
            }
            row.append(character)
            used += columns
        }
        rows.append(String(row))
        return rows
    }
}

/// The C library's character handling (wcwidth, ncursesw's UTF-8) needs a UTF-8 LC_CTYPE.
package enum UTF8Locale {
    package static func ensure() {
        setlocale(LC_ALL, "")
        if lanchat_codeset_is_utf8() != 0 { return }
        setlocale(LC_CTYPE, "C.UTF-8")
    }
}
