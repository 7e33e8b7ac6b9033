import Foundation
import LanChatCore
import Testing

@testable import LanChatStore

/// "Verify and link" in the store (PROTOCOL.md §3.8 rows 7 and 8): a reinstalled contact's
/// new key takes over the earlier key's conversation, standing and held messages.
@Suite("Linking a new key to an earlier one")
struct LinkingStoreTests {
    @Test func theConversationAndTheHeldMessagesMoveToTheNewKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = testKey(2)
        let new = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: old)
        try await store.setAlias(old, "bobby")
        try await store.makeContact(old)
        try await store.markVerified(old)
        _ = try await receive(store, from: old, texts: ["from the old key"], at: 100)
        let delivered = try await store.enqueue(to: old, texts: ["got it"], at: 110) { 70 }
        _ = try await store.markDelivered(peer: old, stream: 70, upTo: 1, at: 120)
        let held = try await store.enqueue(to: old, texts: ["held 1", "held 2"], at: 130) { 70 }
        try await store.addPeer(new, keyTag: "NEWK-EYAA", name: "bob", at: 200)
        _ = try await store.enqueue(to: new, texts: ["to the new key"], at: 210) { 90 }
        #expect(try await store.recordKeyChange(new, from: old, at: 220))

        let linked = try await store.linkKey(
            new, replacing: old, verified: false, alias: "bobby"
        ) { 55 }

        #expect(linked.moved == 4)
        #expect(linked.queued.map(\.text) == ["held 1", "held 2"])
        #expect(linked.queued.map(\.id) == held.map(\.id))
        // After the new key's own message, on its stream.
        #expect(linked.queued.allSatisfy { $0.peer == new && $0.stream == 90 })
        #expect(linked.queued.map(\.seq) == [2, 3])
        #expect(try await store.outgoingState(for: new)?.nextSeq == 4)
        let history = try await store.history(with: new, limit: 10).messages
        // By arrival, as before: the new key's own message was stored last.
        #expect(
            history.map(\.text) == [
                "from the old key", "got it", "held 1", "held 2", "to the new key",
            ])
        #expect(history.first { $0.text == "got it" }?.status == .delivered)
        #expect(history.first { $0.id == delivered[0].id }?.stream == 70)
        #expect(try await store.history(with: old, limit: 10).messages.isEmpty)
        // One conversation, the new key's, with the unread message of the old one.
        let conversations = try await store.conversations(archived: false)
        #expect(conversations.map(\.peer) == [new])
        #expect(conversations.first?.unread == 1)
        // The earlier key's stream started afresh: none of its seqs is looked for again.
        let oldStream = try #require(try await store.outgoingState(for: old))
        #expect(oldStream.stream == 55 && oldStream.nextSeq == 1)

        let peers = try await store.peers()
        let newRecord = try #require(peers.first { $0.key == new })
        #expect(newRecord.alias == "bobby" && newRecord.contact)
        #expect(newRecord.trust == .unverified && newRecord.keyChangedFrom == nil)
        #expect(newRecord.keyChangeSettled == old)
        let oldRecord = try #require(peers.first { $0.key == old })
        #expect(oldRecord.alias == nil && !oldRecord.contact && oldRecord.trust == .unverified)
        // Settled: the same clash seen again (after a restart) raises no warning.
        #expect(try await !store.recordKeyChange(new, from: old, at: 300))
        try store.close()
    }

    /// The earlier key is never sent to again: its queued group copies fail with the reason,
    /// its delivered ones stay as they were, and retry leaves the failed ones failed.
    @Test func theEarlierKeysQueuedGroupCopiesFail() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = testKey(2)
        let new = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: old)
        let group = try #require(GroupID(bytes: [UInt8](repeating: 9, count: 16)))
        let sent = try #require(
            try await store.enqueueGroup(group, to: [old], texts: ["a", "b"], at: 100) { 70 }[old])
        _ = try await store.markDelivered(peer: old, stream: 70, upTo: 1, at: 110)
        try await store.addPeer(new, keyTag: "NEWK-EYAA", name: "bob", at: 200)
        #expect(try await store.recordKeyChange(new, from: old, at: 220))

        let linked = try await store.linkKey(new, replacing: old, verified: false, alias: nil)

        #expect(linked.failedGroupCopies == 1 && linked.queued.isEmpty)
        let copies = try await store.outgoing(sent.map { (peer: old, id: $0.id) })
        #expect(copies.map(\.status) == [.delivered, .failed])
        #expect(copies.last?.failReason == LinkedConversation.replacedReason)
        #expect(try await store.requeueFailed().isEmpty)
    }

    @Test func aVerifiedLinkVerifiesTheNewKeyAndTheNameBecomesItsAlias() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = testKey(2)
        let new = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: old)  // named "bob"
        try await store.addPeer(new, keyTag: "NEWK-EYAA", name: "bob", at: 200)
        #expect(try await store.openRequest(new, at: 210))
        let linked = try await store.linkKey(new, replacing: old, verified: true, alias: "bob")
        #expect(linked == LinkedConversation(moved: 0, queued: []))
        let record = try #require(try await store.peers().first { $0.key == new })
        #expect(record.trust == .verified && record.alias == "bob")
        // Neither key was a contact: the new key's request stays one (found by QA: a link
        // accepted it, past `--accept contacts`).
        #expect(!record.contact && record.requestSince == 210)
        // The earlier key had no stream: none is made for it.
        #expect(try await store.outgoingState(for: old) == nil)
        // Retired: it names its replacement, and is not linked twice.
        #expect(try await store.peers().first { $0.key == old }?.replacedBy == new)
        await #expect(throws: StoreError.self) {
            try await store.linkKey(new, replacing: old, verified: false, alias: nil)
        }
        await #expect(throws: StoreError.self) {
            try await store.linkKey(new, replacing: testKey(9), verified: true, alias: nil)
        }
        await #expect(throws: StoreError.self) {
            try await store.linkKey(new, replacing: new, verified: true, alias: nil)
        }
        try store.close()
    }

    /// A link hands over the contact status the earlier key had, and accepts nothing: a
    /// request of either key stays one, from the earlier of the two.
    @Test func aLinkHandsOverContactStatusAndKeepsRequests() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: testKey(2))
        // The earlier key a contact: the new key's request is accepted with the link.
        try await store.makeContact(testKey(2))
        try await store.addPeer(testKey(3), keyTag: "NEWK-EYAA", name: "bob", at: 200)
        #expect(try await store.openRequest(testKey(3), at: 210))
        _ = try await store.linkKey(testKey(3), replacing: testKey(2), verified: false, alias: nil)
        let contact = try #require(try await store.peers().first { $0.key == testKey(3) })
        #expect(contact.contact && contact.requestSince == nil)
        // Neither a contact, the earlier key's request older: the request is from then.
        try await store.addPeer(testKey(4), keyTag: "OLDE-RKEY", name: "eve", at: 300)
        #expect(try await store.openRequest(testKey(4), at: 310))
        try await store.addPeer(testKey(5), keyTag: "NEWE-RKEY", name: "eve", at: 320)
        #expect(try await store.openRequest(testKey(5), at: 330))
        _ = try await store.linkKey(testKey(5), replacing: testKey(4), verified: true, alias: nil)
        let request = try #require(try await store.peers().first { $0.key == testKey(5) })
        #expect(!request.contact && request.requestSince == 310)
        try store.close()
    }

    @Test func aSettledKeyChangeIsNotRaisedAgainButAnotherEarlierKeyIs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = testKey(2)
        let new = testKey(3)
        let other = testKey(4)
        let store = try await openStoreWithPeer(directory, peer: old)
        try await store.addPeer(new, keyTag: "NEWK-EYAA", name: "bob", at: 200)
        try await store.addPeer(other, keyTag: "OTHE-RKEY", name: "bob", at: 150)
        #expect(try await store.recordKeyChange(new, from: old, at: 220))
        try await store.forget(new, purge: false)
        #expect(try await !store.recordKeyChange(new, from: old, at: 230))
        #expect(try await store.recordKeyChange(new, from: other, at: 240))
        try await store.block(new)
        #expect(try await !store.recordKeyChange(new, from: other, at: 250))
        try store.close()
    }

    @Test func aLinkWithoutNumbersKeepsAVerificationMadeBefore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = testKey(2)
        let new = testKey(3)
        let store = try await openStoreWithPeer(directory, peer: old)
        try await store.addPeer(new, keyTag: "NEWK-EYAA", name: "bob", at: 200)
        #expect(try await store.recordKeyChange(new, from: old, at: 210))
        try await store.markVerified(new)
        _ = try await store.linkKey(new, replacing: old, verified: false, alias: nil)
        let record = try #require(try await store.peers().first { $0.key == new })
        #expect(record.trust == .verified && record.keyChangeSettled == old)
        try store.close()
    }
}
