import LanChatControl
import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

/// Pages cut to a budget of text (found by QA: a `history --limit 300` of 64 KiB messages
/// was an answer over the CLI's 16 MiB line, refused whole).
@Suite struct PageBudgetTests {
    static func message(_ n: Int, bytes: Int) -> MessageInfo {
        MessageInfo(
            id: "m\(n)", peer: "p", direction: .incoming, seq: UInt64(n),
            text: String(repeating: "x", count: bytes),
            createdAt: Timestamp(millisecondsSince1970: Int64(n)))
    }

    /// The budget bounds the page (found by QA: a page went one message past 2 MiB), but a
    /// message larger than it is still shown alone.
    @Test func fittingKeepsEveryOneWhoseTextsUpToItStayWithinTheBudget() {
        #expect(PageBudget.fitting([], budget: 10) == 0)
        #expect(PageBudget.fitting([100], budget: 10) == 1)
        #expect(PageBudget.fitting([100, 1], budget: 10) == 1)
        #expect(PageBudget.fitting([4, 4, 4, 4], budget: 10) == 2)
        #expect(PageBudget.fitting([5, 5, 5], budget: 10) == 2)
        #expect(PageBudget.fitting([5, 6], budget: 10) == 1)
        // The default leaves room for every byte escaped six times in a 16 MiB line.
        #expect(PageBudget.maxTextBytes * 6 + 1_000 * 1_024 < 16 << 20)
    }

    @Test func aBackwardsPageKeepsTheNewestAndSaysThereIsOlder() {
        var page = HistoryResult(
            peer: PeerInfo(id: "p", keyTag: "PPPP-2222", name: "p", presence: .online),
            messages: (1...4).map { Self.message($0, bytes: 4) }, hasOlder: false)
        page.fitToBudget(anchor: .latest, budget: 12)
        #expect(page.messages.map(\.id) == ["m2", "m3", "m4"])
        #expect(page.hasOlder && !page.hasNewer)
    }

    @Test func aForwardsPageKeepsTheOldestAndSaysThereIsNewer() {
        var page = HistoryResult(
            peer: PeerInfo(id: "p", keyTag: "PPPP-2222", name: "p", presence: .online),
            messages: (1...4).map { Self.message($0, bytes: 4) }, hasOlder: true)
        page.fitToBudget(anchor: .after(MessageID.random()), budget: 12)
        #expect(page.messages.map(\.id) == ["m1", "m2", "m3"])
        #expect(page.hasOlder && page.hasNewer)
        // A page within the budget is left alone.
        var small = page
        small.hasNewer = false
        small.fitToBudget(anchor: .latest, budget: 100)
        #expect(
            small
                == {
                    var copy = page
                    copy.hasNewer = false
                    return copy
                }())
    }

    @Test func searchKeepsTheNewestThatFit() {
        let found = SearchResult.fitted((1...3).map { Self.message($0, bytes: 6) }, budget: 12)
        #expect(found.messages.map(\.id) == ["m1", "m2"] && found.more)
        let over = SearchResult.fitted((1...3).map { Self.message($0, bytes: 6) }, budget: 11)
        #expect(over.messages.map(\.id) == ["m1"] && over.more)
        #expect(!SearchResult.fitted([Self.message(1, bytes: 6)], budget: 10).more)
    }
}
