import LanChatControl
import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

/// Pages cut to a budget (found by QA: a `history --limit 300` of 64 KiB messages was an
/// answer over the CLI's 16 MiB line, refused whole; then 50 000 short unread messages, and
/// 500 messages to a group of 256, as the budget counted text only).
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
        // The default leaves room for every byte counted written six times in a 16 MiB line.
        #expect(PageBudget.maxBytes * 6 + 1_024 < 16 << 20)
    }

    /// A message's cost covers its JSON: the largest object a message makes, every optional
    /// field set and its text all escapes, takes less than six bytes a byte counted; and a
    /// message with almost no text still counts the rest of its object.
    @Test func aMessagesCostCoversItsWholeObject() throws {
        let id = String(repeating: "p", count: 52)
        let at = Timestamp(millisecondsSince1970: 1_795_262_400_000)
        for (text, recipients) in [
            ("x", 0), ("x", 256), (String(repeating: "\u{01}", count: 65_536), 256),
            (String(repeating: "\u{01}", count: 10), 0),
        ] {
            var message = MessageInfo(
                id: "00000000-0000-4000-8000-000000000001", peer: id, direction: .outgoing,
                seq: .max, text: text, createdAt: at, receivedAt: at, read: true,
                status: .failed, failReason: "refused by the peer: not a member of the group",
                deliveredAt: at, readAt: at)
            message.group = String(repeating: "a", count: 32)
            message.sender = id
            message.recipients =
                recipients == 0
                ? nil
                : (0..<recipients).map { _ in
                    RecipientInfo(
                        peer: id, status: .delivered, deliveredAt: at, readAt: at,
                        failReason: "refused by the peer: not a member of the group")
                }
            let page = HistoryResult(
                peer: PeerInfo(id: id, keyTag: "PPPP-2222", name: "p", presence: .online),
                messages: [message], hasOlder: true)
            let line = ControlDispatcher.encode(RPCResponse(id: .number(1), result: page))
            let envelope = 1_024
            #expect(
                line.count <= 6 * message.pageCost + envelope,
                "\(text.utf8.count) bytes, \(recipients) recipients: \(line.count)")
        }
    }

    @Test func aBackwardsPageKeepsTheNewestAndSaysThereIsOlder() {
        var page = HistoryResult(
            peer: PeerInfo(id: "p", keyTag: "PPPP-2222", name: "p", presence: .online),
            messages: (1...4).map { Self.message($0, bytes: 4) }, hasOlder: false)
        page.fitToBudget(anchor: .latest, budget: 3 * PageBudget.cost(textBytes: 4))
        #expect(page.messages.map(\.id) == ["m2", "m3", "m4"])
        #expect(page.hasOlder && !page.hasNewer)
    }

    @Test func aForwardsPageKeepsTheOldestAndSaysThereIsNewer() {
        var page = HistoryResult(
            peer: PeerInfo(id: "p", keyTag: "PPPP-2222", name: "p", presence: .online),
            messages: (1...4).map { Self.message($0, bytes: 4) }, hasOlder: true)
        page.fitToBudget(
            anchor: .after(MessageID.random()), budget: 3 * PageBudget.cost(textBytes: 4))
        #expect(page.messages.map(\.id) == ["m1", "m2", "m3"])
        #expect(page.hasOlder && page.hasNewer)
        // A page within the budget is left alone.
        var small = page
        small.hasNewer = false
        small.fitToBudget(anchor: .latest, budget: 4 * PageBudget.cost(textBytes: 4))
        #expect(
            small
                == {
                    var copy = page
                    copy.hasNewer = false
                    return copy
                }())
    }

    @Test func searchKeepsTheNewestThatFit() {
        let two = 2 * PageBudget.cost(textBytes: 6)
        let found = SearchResult.fitted((1...3).map { Self.message($0, bytes: 6) }, budget: two)
        #expect(found.messages.map(\.id) == ["m1", "m2"] && found.more)
        let over = SearchResult.fitted(
            (1...3).map { Self.message($0, bytes: 6) }, budget: two - 1)
        #expect(over.messages.map(\.id) == ["m1"] && over.more)
        #expect(!SearchResult.fitted([Self.message(1, bytes: 6)], budget: 10).more)
    }

    /// Short messages count their objects: a page of them is bounded in number too.
    @Test func shortMessagesAndGroupRecipientsCountAgainstTheBudget() {
        let short = (1...50_000).map { Self.message($0, bytes: 10) }
        let kept = PageBudget.fitting(short.lazy.map(\.pageCost))
        #expect(kept == PageBudget.maxBytes / PageBudget.cost(textBytes: 10), "\(kept)")
        var toGroup = Self.message(1, bytes: 10)
        toGroup.recipients = (0..<256).map { _ in RecipientInfo(peer: "p", status: .queued) }
        #expect(PageBudget.fitting(Array(repeating: toGroup.pageCost, count: 500)) == 31)
    }
}
