import LanChatCore
import LanChatTestSupport
import Testing

/// Which characters the search treats as CJK, and how a token of them is cut.
@Suite("CJK text for search")
struct CJKTextTests {
    @Test func hanKanaHangulAndTheirLetterSymbolsAreCJK() {
        for text in [
            "東", "京", "で", "テ", "ー", "々", "〆", "〇", "ｰ", "ﾃ", "한", "ᄀ", "ㄱ", "ㄅ", "㐀",
            "豈", "𠮷", "𪜀", "𛀁",
        ] {
            #expect(CJKText.contains(text), "\(text)")
        }
        for text in ["a", "é", "Ж", "α", "١", "😀", "、", "。", "「", "Ａ", "１", "\u{3099}", ""] {
            #expect(!CJKText.contains(text), "\(text)")
        }
    }

    /// The ranges are what `isCJK` and the store's SQL filter are built from: ordered and
    /// apart, or the early exit of `isCJK` would miss one.
    @Test func rangesAreOrderedAndApart() {
        for (earlier, later) in zip(CJKText.ranges, CJKText.ranges.dropFirst()) {
            #expect(earlier.upperBound < later.lowerBound)
        }
        for range in CJKText.ranges {
            for value in [range.lowerBound, range.upperBound] {
                #expect(Unicode.Scalar(value).map(CJKText.isCJK) == true, "\(value)")
            }
            for value in [range.lowerBound - 1, range.upperBound + 1]
            where !CJKText.ranges.contains(where: { $0.contains(value) }) {
                #expect(Unicode.Scalar(value).map(CJKText.isCJK) != true, "\(value)")
            }
        }
    }

    @Test func aTokenIsCutIntoItsCJKCharactersAndItsOtherRuns() {
        #expect(CJKText.split("東京で会いましょう") == ["東", "京", "で", "会", "い", "ま", "し", "ょ", "う"])
        #expect(CJKText.split("swiftで書く") == ["swift", "で", "書", "く"])
        #expect(CJKText.split("第3回meeting") == ["第", "3", "回", "meeting"])
        #expect(CJKText.split("서울에서") == ["서", "울", "에", "서"])
        #expect(CJKText.split("meeting") == ["meeting"])
        #expect(CJKText.split("") == [])
        // A combining mark stays with its character (か + ゙ is が in decomposed form); a
        // variation selector is left out, so 葛󠄀 is 葛.
        #expect(CJKText.split("か\u{3099}き") == ["か\u{3099}", "き"])
        #expect(CJKText.split("葛\u{E0100}飾") == ["葛", "飾"])
        #expect(CJKText.split("葛\u{FE00}") == ["葛"])
        // A mark with nothing CJK before it is an ordinary character of its run.
        #expect(CJKText.split("e\u{301}東") == ["e\u{301}", "東"])
        #expect(CJKText.split("\u{301}東") == ["\u{301}", "東"])
    }

    /// Property: nothing is lost or empty; every CJK character is its own piece (with its
    /// marks); concatenated, the pieces are the token without its variation selectors.
    @Test func splittingRandomTokensLosesNothingAndGivesNothingEmpty() {
        let alphabet: [Unicode.Scalar] = [
            "a", "Z", "9", "é", "\u{301}", "\u{3099}", "\u{FE0F}", "\u{E0100}", "\u{200D}",
            "東", "ー", "ﾃ", "한", "𠮷", "\u{FFFF}", "\u{10FFFF}", "\u{E000}", "々",
        ]
        var generator = SeededGenerator(seed: 0xC1C)
        for _ in 0..<2_000 {
            var token = ""
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                token.unicodeScalars.append(
                    alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
            }
            let pieces = CJKText.split(token)
            #expect(pieces.allSatisfy { !$0.isEmpty })
            guard CJKText.contains(token) else {
                #expect(pieces == (token.isEmpty ? [] : [token]))
                continue
            }
            #expect(withoutSelectors(pieces.joined()) == withoutSelectors(token))
            for piece in pieces where CJKText.contains(piece) {
                #expect(piece.unicodeScalars.filter(CJKText.isCJK).count == 1, "\(piece)")
                #expect(piece.unicodeScalars.first.map(CJKText.isCJK) == true, "\(piece)")
            }
        }
    }

    func withoutSelectors(_ text: String) -> String {
        var kept = ""
        kept.unicodeScalars.append(
            contentsOf: text.unicodeScalars.filter {
                !(0xFE00...0xFE0F).contains($0.value) && !(0xE0100...0xE01EF).contains($0.value)
            })
        return kept
    }

    @Test func aQueryWithACJKCharacterAnywhereUsesTheCJKIndex() throws {
        #expect(try SearchQuery(parsing: "東京").usesCJKIndex)
        #expect(try SearchQuery(parsing: "東京 meeting").usesCJKIndex)
        #expect(try SearchQuery(parsing: "meeting \"会い\"*").usesCJKIndex)
        #expect(try SearchQuery(parsing: "서울").usesCJKIndex)
        #expect(try !SearchQuery(parsing: "meeting café").usesCJKIndex)
        // A term with nothing searchable is dropped first: 「」 alone is no CJK term.
        #expect(try !SearchQuery(parsing: "「」 meeting").usesCJKIndex)
        #expect(try SearchQuery(parsing: "東京").matchExpression == "\"東京\"")
    }
}
