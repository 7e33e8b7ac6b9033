import LanChatCore
import Testing

@Suite("Search query parsing")
struct SearchQueryTests {
    func match(_ text: String) throws -> String {
        try SearchQuery(parsing: text).matchExpression
    }

    func failure(_ text: String) -> SearchQuery.Error? {
        do {
            _ = try SearchQuery(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    @Test func wordsPrefixesAndPhrasesBecomeQuotedTerms() throws {
        #expect(try match("deploy") == "\"deploy\"")
        #expect(try match("  build   failed\t") == "\"build\" \"failed\"")
        #expect(try match("depl*") == "\"depl\"*")
        #expect(try match("\"build failed\" now") == "\"build failed\" \"now\"")
        #expect(try match("\"build fa\"*") == "\"build fa\"*")
        #expect(try match("say\"hi there\"") == "\"say\" \"hi there\"")
    }

    @Test func syntaxAndSQLAreQuotedAway() throws {
        #expect(try match("a AND b") == "\"a\" \"AND\" \"b\"")
        #expect(try match("NEAR(a b)") == "\"NEAR(a\" \"b)\"")
        #expect(try match("col:x ^y -z") == "\"col:x\" \"^y\" \"-z\"")
        #expect(try match("'); DROP TABLE x; --") == "\"DROP\" \"TABLE\" \"x;\"")
        // Control characters (a NUL would cut the bound text) separate words.
        #expect(try match("a\u{0}b") == "\"a\" \"b\"")
        #expect(try match("\"a\u{0}b\"") == "\"a b\"")
    }

    @Test func termsWithoutALetterOrDigitAreDropped() throws {
        #expect(try match("deploy -- !!") == "\"deploy\"")
        #expect(try match("\"\" x") == "\"x\"")
        #expect(try match("° x") == "\"x\"")
        // An emoji is searchable (the CJK index holds it, `EmojiText`).
        #expect(try match("😀 x") == "\"😀\" \"x\"")
        #expect(try SearchQuery(parsing: "😀").usesCJKIndex)
        #expect(try !SearchQuery(parsing: "x °").usesCJKIndex)
    }

    @Test func badQueriesAreRefusedWithAReason() {
        #expect(failure("") == .empty)
        #expect(failure(" \t\n") == .empty)
        #expect(failure("\"open phrase") == .unterminatedQuote)
        #expect(failure("a \"b\" \"c") == .unterminatedQuote)
        #expect(failure("*") == .misplacedStar)
        #expect(failure("deploy **") == .misplacedStar)
        // A star that does not end its word is no prefix: refused as `*` alone is (QA).
        #expect(failure("*dep") == .misplacedStar)
        #expect(failure("de*p") == .misplacedStar)
        #expect(failure("**dep*") == .misplacedStar)
        #expect(failure("-- !! ° ⌘") == .nothingSearchable)
        #expect(failure("\"\"") == .nothingSearchable)
        #expect(failure(String(repeating: "a", count: 1_025)) == .tooLong(bytes: 1_025))
        #expect(failure(String(repeating: "é", count: 513)) == .tooLong(bytes: 1_026))
        #expect(failure(String(repeating: "a", count: 1_024)) == nil)
        #expect(SearchQuery.Error.unterminatedQuote.description.contains("never closed"))
    }
}
