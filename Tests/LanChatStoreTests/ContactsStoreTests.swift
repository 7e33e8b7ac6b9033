import Foundation
import LanChatCore
import Testing

@testable import LanChatStore

@Suite("Contacts, trust and message requests in the store")
struct ContactsStoreTests {
    @Test func aRequestStaysOutOfTheInboxUnreadCountsAndReadingUntilAccepted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let stranger = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.addPeer(stranger, keyTag: "STRA-NGER", name: "stranger", at: 1)
        _ = try await receive(store, from: bob, texts: ["from bob"], at: 100)
        #expect(try await store.openRequest(stranger, at: 150))
        #expect(try await !store.openRequest(stranger, at: 151))  // one request, one event
        let logged = try await store.events(after: 0, limit: 100).filter { $0.type == .requestNew }
        #expect(logged.map(\.peer) == [stranger])
        _ = try await receive(store, from: stranger, texts: ["hello?", "anyone?"], at: 160)

        #expect(try await store.conversations(archived: false).map(\.peer) == [bob])
        #expect(try await store.unreadCount() == 1)
        #expect(try await store.counts().unread == 1)
        let requests = try await store.requests()
        #expect(requests.map(\.peer) == [stranger])
        #expect(requests.first?.count == 2 && requests.first?.since == 150)
        #expect(requests.first?.firstMessage?.text == "hello?")

        // Reading everything reads bob's, never the request's (no READ for it).
        let marking = try await store.markRead(peer: nil, at: 170)
        #expect(marking.messages.map(\.peer) == [bob])
        #expect(try await store.markRead(peer: stranger, at: 171).messages.isEmpty)

        try await store.makeContact(stranger)
        #expect(try await store.requests().isEmpty)
        #expect(try await store.conversations(archived: false).map(\.peer) == [stranger, bob])
        #expect(try await store.unreadCount() == 2)
        #expect(try await store.peers().first { $0.key == stranger }?.contact == true)
        // A contact opens no request.
        #expect(try await !store.openRequest(stranger, at: 200))
    }

    /// `add NAME ID` is one write: a new key is pinned, named, a contact and announced; a key
    /// with a pending request is renamed, made a contact and its request accepted, with no
    /// second `peer.new`.
    @Test func addingAContactIsOneWriteThatAnnouncesOnlyANewKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let stranger = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.addPeer(stranger, keyTag: "STRA-NGER", name: "stranger", at: 1)
        #expect(try await store.openRequest(stranger, at: 150))
        _ = try await receive(store, from: stranger, texts: ["hello?"], at: 160)
        let mark = try await store.eventBounds().newest
        let carol = testKey(4)

        try await store.addContact(carol, keyTag: "CARO-L000", alias: "carol", at: 200)
        try await store.addContact(stranger, keyTag: "STRA-NGER", alias: "stan", at: 201)
        let peers = try await store.peers()
        let added = try #require(peers.first { $0.key == carol })
        #expect(
            added.alias == "carol" && added.contact && added.name == "" && added.firstSeen == 200)
        let accepted = try #require(peers.first { $0.key == stranger })
        #expect(accepted.alias == "stan" && accepted.contact && accepted.requestSince == nil)
        #expect(accepted.name == "stranger" && accepted.firstSeen == 1)
        #expect(try await store.requests().isEmpty)
        #expect(try await store.unreadCount() == 1)
        let logged = try await store.events(after: mark, limit: 10)
        #expect(logged.map(\.type) == [.peerNew] && logged.map(\.peer) == [carol])
    }

    /// A non-contact's group message waits in its group's request: the peer's own request
    /// counts and shows its 1:1 messages only.
    @Test func aRequestCountsOnlyItsOneToOneMessages() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stranger = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: stranger)
        #expect(try await store.openRequest(stranger, at: 10))
        let group = GroupID.random()
        _ = try await store.commitIncoming(
            from: stranger,
            records: [incomingRecord(seq: 1, group: group, text: "to the group")],
            cursor: IncomingCursor(stream: 5, delivered: 1, read: 0), at: 20)
        _ = try await receive(store, from: stranger, after: 1, texts: ["just to you"], at: 30)
        let request = try #require(try await store.requests().first)
        #expect(request.count == 1)
        #expect(request.firstMessage?.text == "just to you")
    }

    @Test func blockingDropsAPendingRequestWithItsMessages() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stranger = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: stranger)
        #expect(try await store.openRequest(stranger, at: 10))
        _ = try await receive(store, from: stranger, texts: ["spam"], at: 20)
        try await store.block(stranger)
        #expect(try await store.requests().isEmpty)
        #expect(try await store.history(with: stranger, limit: 10).messages.isEmpty)
        #expect(try await store.conversation(with: stranger) == nil)
        let record = try #require(try await store.peers().first { $0.key == stranger })
        #expect(record.trust == .blocked && record.requestSince == nil)
        try await store.unblock(stranger)
        #expect(try await store.peers().first { $0.key == stranger }?.trust == .unverified)
    }

    /// A peer `remove`d (without purge) that writes again under `--accept contacts` opens a
    /// request of its new messages only: the conversation from before stays history, and
    /// blocking the request deletes none of it.
    @Test func aRequestAfterRemoveHoldsOnlyTheNewMessages() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.makeContact(bob)
        _ = try await receive(store, from: bob, texts: ["lunch?", "at noon"], at: 10)
        _ = try await store.enqueue(to: bob, texts: ["sure"], at: 20)
        try await store.forget(bob, purge: false)

        #expect(try await store.openRequest(bob, at: 150))
        _ = try await receive(store, from: bob, texts: ["me again"], at: 150)
        let request = try #require(try await store.requests().first)
        #expect(request.count == 1 && request.firstMessage?.text == "me again")
        // The conversation from before stays in the inbox as it stood, and is read as any
        // other (found by QA: it left the inbox, and `read` refused it).
        let inbox = try await store.conversations(archived: false)
        #expect(inbox.count == 1 && inbox.first?.peer == bob, "\(inbox)")
        #expect(inbox.first?.lastMessage?.text == "sure" && inbox.first?.unread == 2)
        #expect(inbox.first?.updatedAt == 20)
        #expect(try await store.unreadCount() == 2)
        #expect(try await store.unreadCount(peer: bob) == 2)
        let marked = try await store.markRead(peer: bob, at: 160)
        #expect(marked.messages.map(\.text) == ["lunch?", "at noon"])
        #expect(try await store.markRead(peer: nil, at: 161).messages.isEmpty)
        #expect(try await store.unreadCount() == 0)
        #expect(try await store.conversations(archived: false).first?.unread == 0)
        #expect(try await store.requests().first?.count == 1)

        try await store.block(bob)
        let left = try await store.history(with: bob, limit: 10).messages.map(\.text)
        #expect(left == ["lunch?", "at noon", "sure"])
        #expect(try await store.conversation(with: bob)?.lastMessage?.text == "sure")
    }

    @Test func removeForgetsTrustAndPurgeKeepsOnlyWhatIsStillQueued() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.setAlias(bob, "Bobby")
        try await store.makeContact(bob)
        try await store.markVerified(bob)
        _ = try await receive(store, from: bob, texts: ["old news"], at: 10)
        let sent = try await store.enqueue(to: bob, texts: ["delivered", "still queued"], at: 20)
        _ = try await store.markDelivered(peer: bob, stream: sent[0].stream, upTo: 1, at: 30)

        #expect(try await store.forget(bob, purge: false) == 0)
        var record = try #require(try await store.peers().first { $0.key == bob })
        #expect(record.alias == nil && !record.contact && record.trust == .unverified)
        #expect(try await store.history(with: bob, limit: 10).messages.count == 3)

        #expect(try await store.forget(bob, purge: true) == 1)
        let left = try await store.history(with: bob, limit: 10).messages
        #expect(left.map(\.text) == ["still queued"])
        #expect(try await store.conversation(with: bob)?.lastMessage?.text == "still queued")
        #expect(try await store.search(SearchQuery(parsing: "news"), limit: 10).isEmpty)
        record = try #require(try await store.peers().first { $0.key == bob })
        #expect(record.trust == .unverified)
    }

    /// `remove --purge` deletes the 1:1 conversation only: the peer's messages in a group,
    /// and its copies of our group messages, belong to the group's conversation (found by
    /// QA: the group lost bob's messages, our messages' `2/2` became `1/1`, and messages
    /// whose only other member was bob vanished).
    @Test func aPurgeLeavesThePeersGroupMessagesAndCopies() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let store = try await openStoreWithPeer(directory, peer: bob)
        let group = GroupID.random()
        _ = try await receive(store, from: bob, texts: ["direct"], at: 10)
        let own = try await store.enqueueGroup(group, to: [bob], texts: ["to the group"], at: 20)
        _ = try await store.markDelivered(
            peer: bob, stream: try #require(own[bob]?.first?.stream), upTo: 2, at: 25)
        let cursor = try await store.incomingCursor(from: bob)
        _ = try await store.commitIncoming(
            from: bob,
            records: [
                IncomingRecord(
                    message: WireMessage(
                        stream: cursor.stream, seq: cursor.delivered + 1, id: .random(),
                        sentAt: 30, group: group.bytes, text: "from bob in the group"),
                    text: "from bob in the group")
            ],
            cursor: IncomingCursor(
                stream: cursor.stream, delivered: cursor.delivered + 1, read: 0), at: 30)

        try await store.forget(bob, purge: true)
        #expect(try await store.history(with: bob, limit: 10).messages.isEmpty)
        // Nor does the inbox show a group message as the 1:1 conversation's last (found by
        // QA: "bob  You: to the group" after the purge).
        #expect(try await store.conversations(archived: false).map(\.peer).isEmpty)
        let kept = try await store.groupHistory(group, limit: 10).messages
        #expect(kept.map(\.text) == ["to the group", "from bob in the group"], "\(kept)")
        #expect(kept.allSatisfy { $0.peer == bob })
    }

    /// `remove --purge` leaves none of the purged text in the files: not in freed pages, not
    /// in the search index's old segments, not in the WAL.
    @Test func aPurgeLeavesNoTraceOfTheTextOnDisk() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let store = try await openStoreWithPeer(directory, peer: bob)
        let secret = "zanzibarquokka"
        _ = try await receive(
            store, from: bob, texts: (1...200).map { "\(secret) number \($0)" }, at: 10)
        _ = try await store.completeSearchIndex()
        #expect(try await store.search(SearchQuery(parsing: secret), limit: 10).count == 10)
        func onDisk() -> Bool {
            ["", "-wal"].contains { suffix in
                let bytes =
                    (try? Data(contentsOf: URL(fileURLWithPath: directory.storePath + suffix)))
                return bytes.map { $0.range(of: Data(secret.utf8)) != nil } ?? false
            }
        }
        #expect(onDisk())
        try await store.forget(bob, purge: true)
        #expect(try await store.search(SearchQuery(parsing: secret), limit: 10).isEmpty)
        #expect(!onDisk(), "the purged text is still in the files")
        try store.close()
    }

    @Test func aKeyChangeIsRecordedOnceWithItsEventAndSettledByVerification() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = testKey(2)
        let new = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: old)
        try await store.addPeer(new, keyTag: "NEWK-EYAA", name: "bob", at: 5)
        #expect(try await store.recordKeyChange(new, from: old, at: 10))
        #expect(try await !store.recordKeyChange(new, from: old, at: 11))
        let mismatches = try await store.events(after: 0, limit: 100).filter {
            $0.type == .peerKeyMismatch
        }
        #expect(mismatches.map(\.peer) == [new])
        #expect(try await store.peers().first { $0.key == new }?.keyChangedFrom == old)
        try await store.markVerified(new)
        let record = try #require(try await store.peers().first { $0.key == new })
        #expect(record.keyChangedFrom == nil && record.trust == .verified)
    }

    /// The key that answered at a static peer's address is pinned with its warning in one
    /// write; nothing announces it before its HELLO names it, and again changes nothing.
    @Test func aPresentedKeyIsPinnedWithItsWarningInOneWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = testKey(2)
        let new = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: old)
        let mark = try await store.eventBounds().newest
        let address = Endpoint(host: "127.0.0.1", port: 4)
        #expect(
            try await store.pinPresentedKey(
                new, keyTag: "NEWK-EYAA", insteadOf: old, endpoint: address, at: 10))
        #expect(
            try await !store.pinPresentedKey(
                new, keyTag: "NEWK-EYAA", insteadOf: old, endpoint: address, at: 11))
        let record = try #require(try await store.peers().first { $0.key == new })
        #expect(record.keyChangedFrom == old && record.trust == .unverified)
        #expect(record.name == "" && record.firstSeen == 10 && record.addresses == [address])
        let logged = try await store.events(after: mark, limit: 10)
        #expect(logged.map(\.type) == [.peerKeyMismatch] && logged.map(\.peer) == [new])
    }

    @Test func changesToAnUnknownKeyAreRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: testKey(2))
        await #expect(throws: StoreError.self) { try await store.setAlias(testKey(9), "x") }
        await #expect(throws: StoreError.self) { try await store.block(testKey(9)) }
        await #expect(throws: StoreError.self) { try await store.forget(testKey(9), purge: true) }
    }
}
