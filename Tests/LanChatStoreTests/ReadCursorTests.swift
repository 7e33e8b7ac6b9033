import Foundation
import LanChatCore
import Testing

@testable import LanChatStore

/// READ is cumulative (PROTOCOL.md §9.5: every message with `seq ≤ r` is read), and a peer's
/// stream carries its 1:1 messages and its group copies alike. Reading one conversation must
/// not tell the peer that the other was read (found by black-box QA).
@Suite("The read cursor a READ carries")
struct ReadCursorTests {
    let bob = testKey(2)

    /// bob's stream 5: a 1:1 message (seq 1), a group copy (seq 2), a 1:1 message (seq 3).
    func interleaved(_ store: MessageStore, group: GroupID) async throws {
        let records = [
            incomingRecord(seq: 1, text: "direct 1"),
            incomingRecord(seq: 2, group: group, text: "group 2"),
            incomingRecord(seq: 3, text: "direct 3"),
        ]
        _ = try await store.commitIncoming(
            from: bob, records: records, cursor: IncomingCursor(stream: 5, delivered: 3),
            at: 200)
    }

    /// Found by QA: `read` marked every unread message read in one answer, which large
    /// messages took past the 16 MiB the CLI accepts, so they were never shown. One marking
    /// takes at most a budget (text and objects), the oldest first, and says more is unread; the read
    /// receipt covers only what was marked.
    @Test func oneMarkingTakesABudgetOfTextAndSaysMoreIsUnread() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let records = (1...5).map {
            incomingRecord(seq: UInt64($0), text: "\($0)" + String(repeating: "x", count: 99))
        }
        _ = try await store.commitIncoming(
            from: bob, records: records, cursor: IncomingCursor(stream: 5, delivered: 5),
            at: 200)
        // Three messages' cost: those up to the third are within it, up to the fourth not
        // (a page bounded by the budget, found by QA: one message went past it).
        let first = try await store.markRead(
            peer: bob, at: 300, budget: 3 * PageBudget.cost(textBytes: 100))
        #expect(first.messages.map(\.text.first) == ["1", "2", "3"])
        #expect(first.more)
        #expect(first.receipts == [.init(peer: bob, stream: 5, readUpTo: 3)])
        // A budget smaller than one message still takes one.
        let second = try await store.markRead(peer: nil, at: 400, budget: 1)
        #expect(second.messages.map(\.text.first) == ["4"] && second.more)
        let last = try await store.markRead(peer: bob, at: 500)
        #expect(last.messages.map(\.text.first) == ["5"] && !last.more)
        #expect(last.receipts == [.init(peer: bob, stream: 5, readUpTo: 5)])
        #expect(try await store.markRead(peer: bob, at: 600).messages.isEmpty)
    }

    @Test func aGroupsMarkingTakesABudgetOfTextToo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let group = GroupID.random()
        let records = (1...3).map {
            incomingRecord(seq: UInt64($0), group: group, text: String(repeating: "g", count: 10))
        }
        _ = try await store.commitIncoming(
            from: bob, records: records, cursor: IncomingCursor(stream: 5, delivered: 3),
            at: 200)
        // Each counts its text and the rest of its object: two fit, not three.
        let budget = 3 * PageBudget.cost(textBytes: 10) - 1
        let first = try await store.markGroupRead(group, at: 300, budget: budget)
        #expect(first.messages.count == 2 && first.more)
        let rest = try await store.markGroupRead(group, at: 400, budget: budget)
        #expect(rest.messages.count == 1 && !rest.more)
    }

    @Test func readingTheGroupReportsNothingPastAnUnreadDirectMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let group = GroupID.random()
        try await interleaved(store, group: group)

        let groupRead = try await store.markGroupRead(group, at: 300)
        #expect(groupRead.messages.map(\.text) == ["group 2"])
        #expect(groupRead.receipts.isEmpty, "seq 1, a 1:1 message, is unread")

        let directRead = try await store.markRead(peer: bob, at: 400)
        #expect(directRead.messages.map(\.text) == ["direct 1", "direct 3"])
        #expect(directRead.receipts == [.init(peer: bob, stream: 5, readUpTo: 3)])
    }

    @Test func readingTheDirectMessagesStopsBeforeAnUnreadGroupCopy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let group = GroupID.random()
        try await interleaved(store, group: group)

        let directRead = try await store.markRead(peer: bob, at: 300)
        #expect(directRead.receipts == [.init(peer: bob, stream: 5, readUpTo: 1)])

        let groupRead = try await store.markGroupRead(group, at: 400)
        #expect(groupRead.receipts == [.init(peer: bob, stream: 5, readUpTo: 3)])
        // Nothing more to report: reading again moves nothing.
        #expect(try await store.markRead(peer: nil, at: 500).receipts.isEmpty)
    }

    /// Under `--accept contacts`, a group message from a member who is no contact is the
    /// group's: once that member's own 1:1 request opens, `status` still counts the group
    /// message and reading everything reads it, as the inbox's group row says (found by QA:
    /// `status` said 0, `read` skipped it, the inbox showed it unread).
    @Test func aSendersRequestDoesNotHoldItsMessagesInAnAcceptedGroup() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let own = testKey(9)
        let state = GroupUpdate(id: .random(), version: 1, name: "ops", members: [own, bob])
        #expect(
            try await store.saveGroup(
                StoredGroup(state: state, basis: [], updatedAt: 1), recipients: [bob],
                expectedVersion: nil, changedBy: own))
        try await interleaved(store, group: state.id)
        #expect(try await store.unreadCount() == 3)

        // Opened before they came (as a request opens before the message that causes it):
        // the 1:1 messages are the request's; the group's is still the group's.
        #expect(try await store.openRequest(bob, at: 150))
        #expect(try await store.unreadCount() == 1)
        let read = try await store.markRead(peer: nil, at: 300)
        #expect(read.messages.map(\.text) == ["group 2"])
        #expect(try await store.unreadCount() == 0)
    }
}
