/// What the user typed to `lanchat search`, parsed into a safe SQLite FTS5 MATCH expression.
///
/// Syntax: whitespace-separated words (all must match), `prefix*`, and `"a phrase"` (also
/// `"a phr"*`). Nothing else is syntax: every term goes to FTS5 inside double quotes (a `"`
/// in it doubled), so `AND`, `NEAR`, `col:`, `^`, parentheses or SQL text are searched as
/// plain words and can never make FTS5 fail. Matching is case- and accent-insensitive
/// (the index's `unicode61 remove_diacritics 2` tokenizer folds both sides).
///
/// Chinese, Japanese and Korean (`CJKText`), and emoji (`EmojiText`): a query with such a
/// character anywhere runs against the CJK index (`usesCJKIndex`), where each of them is a
/// token, so a term is found as its characters in a row anywhere in a message (`東京` in
/// "東京で会いましょう", `🎉` in "party🎉").
public struct SearchQuery: Sendable, Hashable {
    /// The longest query, in UTF-8 bytes.
    public static let maxBytes = 1_024

    /// One quoted FTS5 string: a word or a phrase (FTS5 tokenizes it the same way the
    /// messages were), optionally a prefix.
    public struct Term: Sendable, Hashable {
        public var text: String
        public var isPrefix: Bool

        public init(text: String, isPrefix: Bool = false) {
            self.text = text
            self.isPrefix = isPrefix
        }
    }

    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case tooLong(bytes: Int)
        case unterminatedQuote
        case misplacedStar
        case nothingSearchable

        public var description: String {
            switch self {
            case .empty: "the search text is empty"
            case .tooLong(let bytes):
                "the search text is \(bytes) bytes; at most \(SearchQuery.maxBytes) are allowed"
            case .unterminatedQuote: "the search text has a \" that is never closed"
            case .misplacedStar:
                "a * can only end a word (dep* finds the words that start with dep); words "
                    + "cannot be searched by their middle or end"
            case .nothingSearchable:
                "the search text has no letter, digit or emoji to search for"
            }
        }
    }

    /// The terms, all of which must match; never empty.
    public let terms: [Term]

    public init(parsing text: String) throws(Error) {
        let bytes = text.utf8.count
        guard bytes <= Self.maxBytes else { throw .tooLong(bytes: bytes) }
        let parsed = try Self.split(text)
        guard !parsed.isEmpty else { throw .empty }
        terms = parsed.filter { Self.isSearchable($0.text) }
        guard !terms.isEmpty else { throw .nothingSearchable }
    }

    /// Whether a term holds a CJK character or an emoji: the store then searches its CJK
    /// index, where every term must match as in the other (so only messages with such a
    /// character are found, which are the ones that index holds).
    public var usesCJKIndex: Bool {
        terms.contains { CJKText.contains($0.text) || EmojiText.contains($0.text) }
    }

    /// For FTS5's MATCH operator, bound as a parameter: `"word" "prefix"* "a phrase"`.
    public var matchExpression: String {
        terms.map { term in
            var quoted = "\""
            for character in term.text.unicodeScalars {
                if character == "\"" { quoted.unicodeScalars.append("\"") }
                quoted.unicodeScalars.append(character)
            }
            return quoted + (term.isPrefix ? "\"*" : "\"")
        }.joined(separator: " ")
    }

    /// Splits on whitespace and control characters (a NUL would cut the bound text short);
    /// a `"` starts a phrase wherever it is.
    private static func split(_ text: String) throws(Error) -> [Term] {
        let scalars = Array(text.unicodeScalars)
        var terms: [Term] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if isSeparator(scalar) {
                index += 1
            } else if scalar == "\"" {
                guard let close = scalars[(index + 1)...].firstIndex(of: "\"") else {
                    throw .unterminatedQuote
                }
                var term = Term(text: clean(scalars[(index + 1)..<close]))
                index = close + 1
                if index < scalars.count && scalars[index] == "*" {
                    term.isPrefix = true
                    index += 1
                }
                terms.append(term)
            } else {
                var end = index
                while end < scalars.count && !isSeparator(scalars[end]) && scalars[end] != "\"" {
                    end += 1
                }
                var word = scalars[index..<end]
                index = end
                let isPrefix = word.last == "*"
                while word.last == "*" { word = word.dropLast() }
                // `*dep` or `de*p` was searched as `dep` or `de p`, answering words the user
                // did not ask for while `*` alone was refused (found by QA).
                guard !word.isEmpty, !word.contains("*") else { throw .misplacedStar }
                terms.append(Term(text: clean(word), isPrefix: isPrefix))
            }
        }
        return terms
    }

    private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    }

    /// A phrase's control characters become spaces (FTS5 separates tokens on them anyway).
    private static func clean(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var text = ""
        text.unicodeScalars.append(
            contentsOf: scalars.map { $0.properties.generalCategory == .control ? " " : $0 })
        return text
    }

    /// Whether FTS5's tokenizer finds a token in it: its token characters are letters,
    /// numbers and private-use characters (`unicode61`'s default categories `L* N* Co`), and
    /// emoji in the CJK index.
    private static func isSearchable(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter,
                .otherLetter, .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                true
            default: EmojiText.isEmoji(scalar)
            }
        }
    }
}
