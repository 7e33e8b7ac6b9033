import Foundation
import LanChatCore
import LanChatTestSupport
import Testing

@testable import LanChatStore

/// Read marks, the incoming cursors' `read` they raise, and the inbox's conversations.
@Suite("Reading: read marks and the inbox")
struct ReadingTests {
    let bob = testKey(2)
    let carol = testKey(3)

    func openWithBobAndCarol(_ directory: TemporaryDirectory) async throws -> MessageStore {
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.addPeer(carol, keyTag: "CAROL", name: "carol", at: 1_000)
        return store
    }

    @Test func markReadMarksEveryUnreadMessageAndRaisesEachCursorOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openWithBobAndCarol(directory)
        try await receive(store, from: carol, stream: 7, texts: ["c1"], at: 300)
        try await receive(store, from: bob, stream: 5, texts: ["b1", "b2"], at: 301)
        _ = try await store.enqueue(to: bob, texts: ["mine"], at: 302)
        try await receive(store, from: carol, stream: 7, after: 1, texts: ["c2"], at: 303)
        #expect(try await store.unreadCount() == 4)
        #expect(try await store.unreadCount(peer: bob) == 2)
        let mark = try await store.eventBounds().newest

        let marking = try await store.markRead(peer: nil, at: 400)
        // By conversation (carol's unread message is the oldest), then arrival.
        #expect(marking.messages.map(\.text) == ["c1", "c2", "b1", "b2"])
        #expect(marking.messages.allSatisfy { $0.readAt == 400 && $0.direction == .incoming })
        #expect(
            marking.receipts == [
                .init(peer: carol, stream: 7, readUpTo: 2),
                .init(peer: bob, stream: 5, readUpTo: 2),
            ])
        #expect(
            try await store.incomingCursor(from: bob)
                == IncomingCursor(stream: 5, delivered: 2, read: 2))
        let events = try await store.events(after: mark, limit: 10)
        #expect(events.map(\.type) == [.conversationRead, .conversationRead])
        #expect(events.map(\.peer) == [carol, bob])
        #expect(events.map(\.at) == [400, 400])
        #expect(try await store.unreadCount() == 0)
        #expect(try await store.counts().unread == 0)
        #expect(
            try await store.history(with: bob, limit: 10).messages.map(\.readAt) == [400, 400, nil])

        let again = try await store.markRead(peer: nil, at: 500)
        #expect(again == ReadMarking(messages: [], receipts: []))
        #expect(try await store.eventBounds().newest == mark + 2)
    }

    @Test func markReadOfOnePeerLeavesTheOthersUnread() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openWithBobAndCarol(directory)
        try await receive(store, from: bob, texts: ["b1"])
        try await receive(store, from: carol, texts: ["c1", "c2"])
        let marking = try await store.markRead(peer: bob, at: 400)
        #expect(marking.messages.map(\.text) == ["b1"])
        #expect(marking.receipts.map(\.peer) == [bob])
        #expect(try await store.unreadCount(peer: carol) == 2)
        #expect(try await store.counts().unread == 2)
        #expect(try await store.incomingCursor(from: carol).read == 0)
    }

    @Test func theReadCursorNeverPassesDeliveredNorCountsAnOldStream() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openWithBobAndCarol(directory)
        // Bob's old stream 5, then his new stream 6 (his store went back in time).
        try await receive(store, from: bob, stream: 5, texts: ["old1", "old2", "old3"])
        try await receive(store, from: bob, stream: 6, texts: ["new1"])
        // Carol's seq 3 is stored but her cursor (as the caller gave it) says delivered 2.
        _ = try await store.commitIncoming(
            from: carol, records: incomingRecords(stream: 7, seqs: 1...3),
            cursor: IncomingCursor(stream: 7, delivered: 2, read: 0), at: 200)
        let marking = try await store.markRead(peer: nil, at: 400)
        #expect(marking.messages.count == 7)
        #expect(
            Set(
                marking.receipts.map {
                    "\($0.peer == bob ? "bob" : "carol") \($0.stream) \($0.readUpTo)"
                })
                == ["bob 6 1", "carol 7 2"])
    }

    /// The link's ledger may hold `read = 0` while `markRead` raised it in the store: its
    /// next commit must not lower it; a new stream still starts over.
    @Test func commitIncomingNeverLowersReadWithinAStream() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openWithBobAndCarol(directory)
        try await receive(store, from: bob, stream: 5, texts: ["1", "2"])
        _ = try await store.markRead(peer: bob, at: 300)
        try await receive(store, from: bob, stream: 5, after: 2, texts: ["3"])
        #expect(
            try await store.incomingCursor(from: bob)
                == IncomingCursor(stream: 5, delivered: 3, read: 2))
        try await receive(store, from: bob, stream: 8, texts: ["fresh"])
        #expect(
            try await store.incomingCursor(from: bob)
                == IncomingCursor(stream: 8, delivered: 1, read: 0))
    }

    @Test func theInboxListsConversationsByLastActivityWithUnreadCounts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openWithBobAndCarol(directory)
        try await store.addPeer(testKey(4), keyTag: "DAVE", name: "dave", at: 1_000)
        #expect(try await store.conversations(archived: false).isEmpty)
        try await receive(store, from: bob, texts: ["b1", "b2"], at: 300)
        try await receive(store, from: carol, texts: ["c1"], at: 310)
        let sent = try await store.enqueue(to: bob, texts: ["reply"], at: 320)

        let inbox = try await store.conversations(archived: false)
        #expect(inbox.map(\.peer) == [bob, carol])  // dave has no conversation
        #expect(inbox.map(\.unread) == [2, 1])
        #expect(inbox.map(\.updatedAt) == [320, 310])
        #expect(inbox[0].lastMessage == sent[0])
        #expect(inbox[1].lastMessage?.text == "c1")
        #expect(inbox.allSatisfy { !$0.archived })
        _ = try await store.markRead(peer: bob, at: 330)
        #expect(try await store.conversation(with: bob)?.unread == 0)
        #expect(try await store.conversation(with: testKey(4)) == nil)
    }

    /// Many conversations, activity times that repeat: newest activity first, and among
    /// equal times the one whose last message came last.
    @Test func theInboxOrdersByActivityThenByLastMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.path + "/store.sqlite3")
        defer { try? store.close() }
        var peers: [PeerKey] = []
        for index in 0..<60 {
            let key = testKey(UInt8(10 + index))
            try await store.addPeer(key, keyTag: "P\(index)", name: "p\(index)", at: 1)
            peers.append(key)
        }
        // Received in a shuffled order, at six different times: rowids and times disagree.
        var generator = SeededGenerator(seed: 7)
        for (index, peer) in peers.shuffled(using: &generator).enumerated() {
            try await receive(store, from: peer, texts: ["m"], at: Int64(1_000 + (index * 7) % 6))
        }
        let inbox = try await store.conversations(archived: false)
        #expect(inbox.count == 60)
        let keys = inbox.map { ($0.updatedAt ?? .min, $0.lastMessage?.rowID ?? 0) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 }, "\(keys)")
        #expect(Set(keys.map(\.0)).count == 6)
    }

    @Test func archivingHidesAConversationUntilANewMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openWithBobAndCarol(directory)
        try await receive(store, from: bob, texts: ["b1"], at: 300)
        try await receive(store, from: carol, texts: ["c1"], at: 310)
        let change = try #require(try await store.setArchived(peer: bob, true))
        let archived = change.conversation
        #expect(change.changed)
        #expect(archived.archived && archived.peer == bob && archived.unread == 1)
        let again = try #require(try await store.setArchived(peer: bob, true))
        #expect(!again.changed && again.conversation == archived)
        #expect(try await store.conversations(archived: false).map(\.peer) == [carol])
        #expect(try await store.conversations(archived: true).map(\.peer) == [bob])
        #expect(try await store.setArchived(peer: testKey(4), true) == nil)

        try await receive(store, from: bob, after: 1, texts: ["b2"], at: 320)
        #expect(try await store.conversations(archived: false).map(\.peer) == [bob, carol])
        #expect(try await store.conversations(archived: true).isEmpty)
        _ = try await store.setArchived(peer: carol, true)
        let unarchived = try #require(try await store.setArchived(peer: carol, false))
        #expect(unarchived.changed && !unarchived.conversation.archived)
        #expect(try await store.setArchived(peer: carol, false)?.changed == false)
    }
}
