/// Chinese, Japanese and Korean text, as search sees it: written without spaces between
/// words, so FTS5's `unicode61` tokenizer takes a whole run of it for one word (found by QA:
/// `search 東京` did not find "東京で会いましょう"). The search index of messages holding
/// such characters (`messages_fts_cjk`, schema v14) makes each of them a token of its own,
/// and a term is then found as its characters in a row, anywhere in the text.
public enum CJKText {
    /// The code points treated as CJK, in ascending order: Han ideographs (with their
    /// extensions and compatibility forms), Hiragana, Katakana (halfwidth too), Bopomofo,
    /// Hangul syllables and jamo, and the letters and numbers among the CJK symbols
    /// (々 〆 〇, the Hangzhou numerals, the kana repeat marks). `unicode61` takes every
    /// letter and number here for a token character; the few punctuation marks inside these
    /// blocks (・ ゠) it separates on, and they change nothing.
    ///
    /// The store's schema (v14) writes its filter from these ranges: changing them needs a
    /// migration that indexes `messages_fts_cjk` again and recreates its delete trigger.
    public static let ranges: [ClosedRange<UInt32>] = [
        0x1100...0x11FF,  // Hangul Jamo
        0x3005...0x3007,  // 々 〆 〇
        0x3021...0x3029,  // Hangzhou numerals
        0x3031...0x3035,  // kana repeat marks
        0x3038...0x303C,  // more Hangzhou numerals, 〻 〼
        0x3040...0x3098,  // Hiragana
        // (not U+3099 and U+309A: the combining (han)dakuten, marks that stay with their kana)
        0x309B...0x30FF,  // Hiragana's last, Katakana (ー among them)
        0x3100...0x312F,  // Bopomofo
        0x3130...0x318F,  // Hangul Compatibility Jamo
        0x31A0...0x31BF,  // Bopomofo Extended
        0x31F0...0x31FF,  // Katakana Phonetic Extensions
        0x3400...0x4DBF,  // CJK Unified Ideographs Extension A
        0x4E00...0x9FFF,  // CJK Unified Ideographs
        0xA960...0xA97F,  // Hangul Jamo Extended-A
        0xAC00...0xD7FF,  // Hangul Syllables, Hangul Jamo Extended-B
        0xF900...0xFAFF,  // CJK Compatibility Ideographs
        0xFF66...0xFFDC,  // halfwidth Katakana (ｰ among them) and Hangul
        0x1AFF0...0x1B16F,  // Kana Extended-B, Kana Supplement, Extended-A, Small Kana
        0x20000...0x323AF,  // CJK Unified Ideographs Extensions B to H, Compatibility Supplement
    ]

    /// Whether `scalar` is one of `ranges`.
    public static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        // Latin, Greek, Cyrillic and every other script before Hangul Jamo: one comparison.
        guard value >= 0x1100 else { return false }
        for range in ranges {
            if value < range.lowerBound { return false }
            if value <= range.upperBound { return true }
        }
        return false
    }

    /// Whether `text` holds a CJK character.
    public static func contains(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: isCJK)
    }

    /// Whether the CJK index holds a message of this text (schema v15; the store's SQL test
    /// is `Schema.holdsCJK`): it has a CJK character or a character of the emoji blocks
    /// (`EmojiText.ranges`, a few of whose symbols are no emoji and only separate there).
    public static func indexHolds(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains { scalar in
            isCJK(scalar) || EmojiText.ranges.contains { $0.contains(scalar.value) }
        }
    }

    /// One token of `unicode61` cut into the tokens of the CJK index: each CJK character and
    /// each emoji (`EmojiText`) on its own (with the combining marks that follow it, a
    /// variation selector left out: 葛󠄀 is 葛, ❤️ is ❤), every other run kept whole
    /// (`Swiftで` is `swift`, `で`; `thumbs👍up` is `thumbs`, `👍`, `up`). A symbol that is not
    /// an emoji (`°`, `^`, which the index's tokenizer lets through since v15 for the sake of
    /// emoji) separates, as it does in `messages_fts`. A token with none of these comes back
    /// as it is; nothing empty comes back.
    public static func split(_ token: String) -> [String] {
        guard token.unicodeScalars.contains(where: { isCJK($0) || EmojiText.isSymbol($0) })
        else { return token.isEmpty ? [] : [token] }
        var pieces: [String] = []
        var current = ""
        var currentIsCJK = false
        for scalar in token.unicodeScalars {
            if isCJK(scalar) || EmojiText.isEmoji(scalar) {
                if !current.isEmpty { pieces.append(current) }
                current = String(scalar)
                currentIsCJK = true
            } else if EmojiText.isSymbol(scalar) {
                if !current.isEmpty { pieces.append(current) }
                current = ""
                currentIsCJK = false
            } else if currentIsCJK && isCombiningMark(scalar) {
                if !isVariationSelector(scalar) { current.unicodeScalars.append(scalar) }
            } else {
                if currentIsCJK {
                    pieces.append(current)
                    current = ""
                    currentIsCJK = false
                }
                current.unicodeScalars.append(scalar)
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    private static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
        (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value)
    }
}
