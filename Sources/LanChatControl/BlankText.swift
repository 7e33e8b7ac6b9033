extension String {
    /// Nothing a reader would see: white space, and characters that are invisible by nature
    /// (format characters, and Unicode's default-ignorable ones: a zero width space, a word
    /// joiner, a byte order mark, a variation selector, the Hangul fillers), and the blank
    /// Braille pattern, which shows as a space does. Found by QA: a
    /// message, an alias, a group name or a display name of U+200B alone was taken, where
    /// one of spaces was refused. Stops at the first visible character.
    public var isBlankText: Bool {
        unicodeScalars.allSatisfy {
            $0.properties.isWhitespace || $0.properties.isDefaultIgnorableCodePoint
                || $0.properties.generalCategory == .format || $0 == "\u{2800}"
        }
    }
}
