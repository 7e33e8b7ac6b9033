import LanChatControl

/// Text output of `lanchat search`: one line per hit, newest first (the daemon's order):
/// smart time, who wrote to whom, and the text on one line with the query's words
/// highlighted when colour is on.
package enum SearchView {
    /// `groups` names the groups of group messages (`#name`); one missing from it is shown
    /// by its id.
    package static func render(
        _ result: SearchResult, query: String, peers: [String: PeerInfo],
        groups: [String: GroupInfo] = [:], now: Timestamp, zone: any UTCOffsetProvider,
        style: TextStyle
    ) -> String {
        guard !result.messages.isEmpty else {
            // A query of a kilobyte is not repeated whole (found by QA).
            return "No messages match '\(truncated(query, to: 80))'.\n"
        }
        let terms = SearchTerms(query)
        let rows = result.messages.map { message in
            (time: SmartTime.format(message.createdAt, now: now, zone: zone), message: message)
        }
        let timeWidth = rows.map(\.time.count).max() ?? 0
        return rows.map { row in
            let message = row.message
            let author = message.sender ?? message.peer
            let name = truncated(peers[author].map(PeerText.nameOrKeyTag) ?? author, to: 24)
            let who: String
            if let group = message.group {
                // A group's message: who wrote it, in which group.
                let title = "#" + truncated(groups[group]?.name ?? group, to: 24)
                who =
                    message.direction == .outgoing
                    ? style.dim("You → ") + style.bold(title)
                    : style.bold(name) + style.dim(" in ") + style.bold(title)
            } else {
                who =
                    message.direction == .outgoing
                    ? style.dim("You → ") + style.bold(name) : style.bold(name)
            }
            let padding = String(repeating: " ", count: timeWidth - row.time.count)
            let text = highlighted(terminalSafe(message.text), terms: terms, style: style)
            return style.dim(row.time) + padding + "  " + who + ": " + text + "\n"
        }.joined()
            + (result.more
                ? style.dim(
                    "(more messages match than one answer holds: these are the newest; more "
                        + "words or --peer narrow the search)") + "\n"
                : "")
    }

    /// `text` with every match of a term wrapped in bold reverse video; unchanged without
    /// colour. Matches are case- and accent-insensitive (`fold`) and start at a word
    /// boundary; a word or phrase must also end at one, a prefix term (`dep*`) extends to the
    /// end of its word.
    package static func highlighted(_ text: String, terms: SearchTerms, style: TextStyle)
        -> String
    {
        guard style.enabled else { return text }
        let ranges = merged(terms.terms.flatMap { matches(of: $0, in: text) })
        guard !ranges.isEmpty else { return text }
        var result = ""
        var position = text.startIndex
        for range in ranges {
            result += text[position..<range.lowerBound]
            result += style.highlight(String(text[range]))
            position = range.upperBound
        }
        return result + text[position...]
    }

    static func matches(of term: SearchTerms.Term, in text: String) -> [Range<String.Index>] {
        let needle = term.text.map(fold).filter { !$0.isEmpty }
        guard !needle.isEmpty else { return [] }
        let characters = Array(text)
        let folded = characters.map(fold)
        let indices = Array(text.indices) + [text.endIndex]
        var found: [Range<String.Index>] = []
        var start = 0
        while start + needle.count <= folded.count {
            let end = start + needle.count
            guard folded[start..<end].elementsEqual(needle),
                isBoundary(characters, at: start)
            else {
                start += 1
                continue
            }
            if term.isPrefix {
                var wordEnd = end
                while wordEnd < characters.count, !isBoundary(characters, at: wordEnd) {
                    wordEnd += 1
                }
                found.append(indices[start]..<indices[wordEnd])
                start = wordEnd
            } else if isBoundary(characters, at: end) {
                found.append(indices[start]..<indices[end])
                start = end
            } else {
                start += 1
            }
        }
        return found
    }

    /// A character as the matcher compares it: lower case, without diacritics. Foundation's
    /// `range(of:options:)` would do this, but lanchat links only FoundationEssentials (every
    /// command would otherwise load Foundation and ICU at start); this covers what a search
    /// word holds: combining marks are dropped and a precomposed Latin letter "WITH" a mark
    /// becomes its base letter (from its Unicode name, so every such letter is covered).
    static func fold(_ character: Character) -> String {
        var folded = ""
        for scalar in character.unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .spacingMark: continue
            default: break
            }
            folded += latinBase(scalar) ?? properties.lowercaseMapping
        }
        return folded
    }

    /// `e` for `é` (LATIN SMALL LETTER E WITH ACUTE) or `É`; nil for anything else.
    private static func latinBase(_ scalar: Unicode.Scalar) -> String? {
        guard scalar.value >= 0xC0,
            scalar.value < 0x2B0 || (0x1E00..<0x1F00).contains(scalar.value),
            let name = scalar.properties.name, let with = name.firstRange(of: " WITH ")
        else { return nil }
        let base = name[..<with.lowerBound]
        for prefix in ["LATIN SMALL LETTER ", "LATIN CAPITAL LETTER "] where base.hasPrefix(prefix)
        {
            let letter = base.dropFirst(prefix.count)
            if letter.count == 1 { return letter.lowercased() }
        }
        return nil
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber
    }

    /// Whether a word may start or end between `characters[index - 1]` and
    /// `characters[index]`: at either end of the text, beside a character that is not part of
    /// a word, or beside a Chinese, Japanese or Korean one, each of which the search index
    /// takes as a word of its own (`CJKText` in LanChatCore), so `東京` in `明日東京で` is
    /// highlighted as it is found.
    static func isBoundary(_ characters: [Character], at index: Int) -> Bool {
        guard index > 0, index < characters.count else { return true }
        let before = characters[index - 1]
        let after = characters[index]
        return !isWordCharacter(before) || !isWordCharacter(after) || isCJK(before)
            || isCJK(after)
    }

    /// Han ideographs, kana and Hangul: the bulk of what the index cuts into single
    /// characters (its exact ranges are LanChatCore's, which the CLI does not link).
    static func isCJK(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x1100...0x11FF, 0x3040...0x30FF, 0x3130...0x318F, 0x31F0...0x31FF,
            0xAC00...0xD7AF, 0xFF66...0xFF9F:
            return true
        default:
            return scalar.properties.isIdeographic
        }
    }

    /// An emoji, which the index takes as a word of its own (`EmojiText` in LanChatCore,
    /// which the CLI does not link; the digits and `#` that Unicode also calls emoji are
    /// below its first block).
    static func isEmoji(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        return scalar.value >= 0x2300 && scalar.properties.isEmoji
    }

    /// Sorted, overlapping or touching ranges joined.
    static func merged(_ ranges: [Range<String.Index>]) -> [Range<String.Index>] {
        var result: [Range<String.Index>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

/// The terms of a search query as the highlighter needs them: words, `prefix*` and
/// `"a phrase"`. Operators and punctuation that the daemon's query syntax gives meaning to
/// are not text to highlight.
package struct SearchTerms: Equatable, Sendable {
    package struct Term: Equatable, Sendable {
        package var text: String
        package var isPrefix: Bool
    }

    package var terms: [Term]

    package init(_ query: String) {
        var terms: [Term] = []
        var rest = Substring(query)
        while let quote = rest.firstIndex(of: "\"") {
            terms += Self.words(rest[..<quote])
            let afterQuote = rest.index(after: quote)
            let close = rest[afterQuote...].firstIndex(of: "\"") ?? rest.endIndex
            let phrase = rest[afterQuote..<close].split(whereSeparator: \.isWhitespace)
                .joined(separator: " ")
            if !phrase.isEmpty { terms.append(Term(text: phrase, isPrefix: false)) }
            rest = close < rest.endIndex ? rest[rest.index(after: close)...] : ""
        }
        self.terms = terms + Self.words(rest)
    }

    private static let operators: Set<String> = ["AND", "OR", "NOT", "NEAR"]

    private static func words(_ text: Substring) -> [Term] {
        text.split(whereSeparator: \.isWhitespace).compactMap { word in
            guard !operators.contains(String(word)) else { return nil }
            let isPrefix = word.hasSuffix("*")
            let trimmed = word.trimmingCharacters {
                !($0.isLetter || $0.isNumber || SearchView.isEmoji($0))
            }
            return trimmed.isEmpty ? nil : Term(text: trimmed, isPrefix: isPrefix)
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(where shouldTrim: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !shouldTrim($0) }),
            let last = lastIndex(where: { !shouldTrim($0) })
        else { return "" }
        return String(self[first...last])
    }
}
