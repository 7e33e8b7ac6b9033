/// The keys of `lanchat chat` as they arrive, read after read, decoded into `ChatKey`s.
///
/// Why a stream and not one read at a time: with bracketed paste (xterm's mode 2004, which
/// `CursesTerminal` turns on) the terminal wraps pasted text in `ESC [ 200 ~` … `ESC [ 201 ~`,
/// and a long paste arrives over several reads. Inside a paste every character is text: a
/// line break is a newline in the message, not Enter (so a pasted stack trace is one message,
/// not one message a line), a tab stays a tab, and other controls are dropped, except Ctrl-C,
/// which leaves as always (and ends the paste). Outside one,
/// keys mean what they mean (`ChatKeyDecoder`). Owned by the terminal's one thread.
package struct ChatKeyStream {
    /// A key as read: a character, or a function key ncurses decoded itself.
    package enum Raw: Equatable, Sendable {
        case character(UInt32)
        case function(ChatKey)
    }

    /// Inside a paste (its start marker read, its end not yet).
    private(set) var pasting = false
    /// The end of the last read that may be the start of a marker cut by the read: decided
    /// with the next read.
    private var held: [Raw] = []
    /// A carriage return ended the last read of a paste: a line feed opening the next one
    /// belongs to it (CR LF is one line break).
    private var afterCarriageReturn = false

    static let pasteStart: [UInt32] = [0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E]  // ESC [ 200 ~
    static let pasteEnd: [UInt32] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]  // ESC [ 201 ~

    package init() {}

    package mutating func keys(_ read: [Raw]) -> [ChatKey] {
        var raw = held + read
        held = []
        // A lone ESC outside a paste is a key of its own (ncurses waited for more): held, it
        // would swallow the next key as an Alt chord. Inside one it is never typed, so an
        // end marker cut right after its ESC is held whole and the paste still ends.
        if let cut = Self.markerPrefixLength(atEndOf: raw, shortest: pasting ? 1 : 2) {
            held = Array(raw.suffix(cut))
            raw.removeLast(cut)
        }
        var keys: [ChatKey] = []
        var typed: [Raw] = []  // keys outside a paste, decoded together (escape sequences)
        var index = 0
        while index < raw.count {
            if let marker = Self.marker(in: raw, at: index) {
                keys += Self.decoded(typed)
                typed = []
                pasting = marker == Self.pasteStart
                afterCarriageReturn = false
                index += marker.count
                continue
            }
            if pasting {
                if raw[index] == .character(0x1B) {
                    // Pasted terminal output (colours, titles): the whole sequence goes, not
                    // only its ESC, which would leave `[31m` in the message.
                    index = Self.escapeSequenceEnd(in: raw, from: index) + 1
                    continue
                }
                if let key = pasted(raw[index]) { keys.append(key) }
            } else {
                typed.append(raw[index])
            }
            index += 1
        }
        return keys + Self.decoded(typed)
    }

    /// One key of a paste as text, or nil when it adds nothing.
    private mutating func pasted(_ key: Raw) -> ChatKey? {
        let wasAfterCarriageReturn = afterCarriageReturn
        afterCarriageReturn = false
        switch key {
        case .function(.enter):
            return .character("\n")
        case .function:
            return nil
        case .character(0x03):
            // Ctrl-C still leaves: a paste whose end never comes (a terminal or a program
            // that sent only the start marker) must not take the way out away.
            pasting = false
            return .interrupt
        case .character(0x0D):
            afterCarriageReturn = true
            return .character("\n")
        case .character(0x0A):
            return wasAfterCarriageReturn ? nil : .character("\n")
        case .character(0x09):
            return .character("\t")
        case .character(let value):
            guard case .character(let character) = ChatKeyDecoder.character(value) else {
                return nil
            }
            return .character(character)
        }
    }

    private static func decoded(_ typed: [Raw]) -> [ChatKey] {
        let keep = ChatKeyDecoder.withoutEscapeSequences(
            typed.map { if case .character(let value) = $0 { value } else { nil } })
        return zip(typed, keep).compactMap { key, kept in
            guard kept else { return nil }
            switch key {
            case .character(let value): return ChatKeyDecoder.character(value)
            case .function(let decoded): return decoded
            }
        }
    }

    /// Where the escape sequence starting with the ESC at `start` ends (its last key; the
    /// read's last when it is cut): CSI up to its final byte, OSC up to BEL or ST, any other
    /// up to its final byte after any intermediates.
    static func escapeSequenceEnd(in raw: [Raw], from start: Int) -> Int {
        func byte(_ index: Int) -> UInt32? {
            guard index < raw.count, case .character(let value) = raw[index] else { return nil }
            return value
        }
        switch byte(start + 1) {
        case 0x5B:  // CSI: parameters and intermediates, then one final byte
            var index = start + 2
            while let value = byte(index), (0x20...0x3F).contains(value) { index += 1 }
            return min(index, raw.count - 1)
        case 0x5D:  // OSC: up to BEL, or ST (ESC \)
            var index = start + 2
            while index < raw.count {
                if byte(index) == 0x07 { return index }
                if byte(index) == 0x1B, byte(index + 1) == 0x5C { return index + 1 }
                index += 1
            }
            return raw.count - 1
        case nil:
            return start
        default:  // ESC, intermediates (`ESC ( B`), one final byte
            var index = start + 1
            while let value = byte(index), (0x20...0x2F).contains(value) { index += 1 }
            return min(index, raw.count - 1)
        }
    }

    /// The paste marker starting at `index`, if one does.
    private static func marker(in raw: [Raw], at index: Int) -> [UInt32]? {
        // Asked for every key of a paste: a megabyte's paste spent a fifth of its time here
        // building the two candidates for keys that are not even ESC.
        guard raw[index] == .character(0x1B) else { return nil }
        return [pasteStart, pasteEnd].first { marker in
            index + marker.count <= raw.count
                && marker.indices.allSatisfy { raw[index + $0] == .character(marker[$0]) }
        }
    }

    /// How many keys (at least `shortest`) at the end of `raw` begin a marker without
    /// completing it; nil when none do.
    private static func markerPrefixLength(atEndOf raw: [Raw], shortest: Int) -> Int? {
        let longest = min(raw.count, pasteStart.count - 1)
        guard longest >= shortest else { return nil }
        return (shortest...longest).reversed().first { length in
            let tail = raw.suffix(length)
            return [pasteStart, pasteEnd].contains { marker in
                zip(tail, marker).allSatisfy { $0 == .character($1) }
            }
        }
    }
}
