/// Emoji, as search sees them: `unicode61` takes no symbol for a token character, so an
/// emoji was never indexed and `search 🎉` was refused ("no letter or digit to search
/// for"). From schema v15 the CJK index (`messages_fts_cjk`) also holds the messages with
/// an emoji, its tokenizer is given the symbol categories, and `CJKText.split` makes each
/// emoji a token of its own: `🎉` is found in "party🎉tonight", a skin tone or a family is
/// found by its emoji in a row, and a query with an emoji runs against that index.
public enum EmojiText {
    /// The blocks that hold emoji, in ascending order: the store's filter of what goes into
    /// the CJK index is written from them with `CJKText.ranges` (schema v15), so changing
    /// them needs a migration that indexes it again.
    public static let ranges: [ClosedRange<UInt32>] = [
        0x2300...0x23FF,  // Miscellaneous Technical (⌚ ⌛ ⏰)
        0x2600...0x27BF,  // Miscellaneous Symbols, Dingbats (☕ ✅ ❤)
        0x2B00...0x2BFF,  // Miscellaneous Symbols and Arrows (⬛ ⭐)
        0x1F000...0x1FAFF,  // Mahjong tiles to Symbols and Pictographs Extended-A (🎉 👍 🇫🇷)
    ]

    /// The tokenizer arguments that let symbols reach `CJKText.split`: `unicode61`'s default
    /// token characters (letters, numbers, private use) and the two symbol categories.
    /// Symbols that are not emoji are separators there, as they are in `messages_fts`.
    public static let tokenCategories = "L* N* Co So Sk"

    /// Whether `scalar` is an emoji of `ranges` (not a digit, `#` or `*`, which Unicode also
    /// calls emoji for their keycaps).
    public static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        guard value >= 0x2300, isSymbol(scalar), scalar.properties.isEmoji else { return false }
        return ranges.contains { $0.contains(value) }
    }

    /// Whether `text` holds an emoji.
    public static func contains(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: isEmoji)
    }

    /// A symbol (`So` or `Sk`): what `tokenCategories` adds to the token characters.
    static func isSymbol(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .otherSymbol, .modifierSymbol: true
        default: false
        }
    }
}
