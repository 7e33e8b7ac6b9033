import Foundation
import GRDB
import LanChatCore
import LanChatTestSupport
import Synchronization
import Testing

@testable import LanChatStore

/// The search index built after the write (`Schema.v5`) and the unread counts the
/// conversations keep.
@Suite("Search index after the write, unread counts")
struct SearchIndexTests {
    let bob = testKey(2)
    let carol = testKey(3)

    func texts(_ store: MessageStore, _ query: String) async throws -> [String] {
        try await store.search(SearchQuery(parsing: query), limit: 100).map(\.text)
    }

    /// FTS5's own check that the index holds exactly the rows it should (the external-content
    /// form compares the index with `messages`: a missed or doubled entry fails it).
    func checkIndex(_ store: MessageStore) async throws {
        try await store.executeForTesting(
            "INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)")
    }

    @Test func messagesAreStoredWithoutIndexAndSearchIndexesThemFirst() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await receive(store, from: bob, texts: ["the build is green", "lunch?"])
        _ = try await store.enqueue(to: bob, texts: ["build again"], at: 300)
        #expect(try await store.messagesAwaitingIndex() == 3)
        #expect(try await texts(store, "build") == ["build again", "the build is green"])
        #expect(try await store.messagesAwaitingIndex() == 0)
        try await checkIndex(store)
    }

    /// A full disk: what is not yet indexed cannot be, and what is indexed is still found
    /// (found by QA: every search failed with exit 74 for one message not yet indexed).
    @Test func aFullDiskStillSearchesWhatIsIndexed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        _ = try await store.enqueue(to: bob, texts: ["the build is green"], at: 100)
        #expect(try await texts(store, "build") == ["the build is green"])
        // Enough messages that indexing them needs new pages.
        _ = try await store.enqueue(
            to: bob, texts: (1...200).map { "build number \($0) of the week" }, at: 200)
        try await store.executeForTesting("PRAGMA max_page_count = 1")
        do {
            try await store.indexPendingMessages()
            Issue.record("a full store took the index")
        } catch {
            #expect(error.kind == .unavailable)
        }
        #expect(try await texts(store, "green") == ["the build is green"])
        #expect(try await store.messagesAwaitingIndex() == 200)
        try await store.executeForTesting("PRAGMA max_page_count = 1000000")
        #expect(try await texts(store, "week").count == 100)
        #expect(try await store.messagesAwaitingIndex() == 0)
    }

    @Test func batchesIndexInStoredOrderAndStopWhenComplete() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await receive(store, from: bob, texts: (0..<25).map { "word\($0) common" })
        #expect(try await store.indexPendingMessages(limit: 10) == 10)
        #expect(try await store.messagesAwaitingIndex() == 15)
        // The first ten are searchable through the index alone (no catch-up: read directly).
        let indexed = try await store.pool.read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'common'")
        }
        #expect(indexed == 10)
        #expect(try await store.completeSearchIndex() == 15)
        #expect(try await store.indexPendingMessages() == 0)
        try await checkIndex(store)
    }

    /// Deleting the newest messages lowers the boundary with `max(rowid)`, so the rowids that
    /// SQLite hands out again are indexed, and deleting an unindexed row touches no index.
    @Test func deletedRowsAndReusedRowidsKeepTheIndexExact() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.addPeer(carol, keyTag: "C", name: "carol", at: 1)
        try await receive(store, from: bob, texts: ["alpha from bob"])
        try await receive(store, from: carol, texts: ["alpha from carol", "beta from carol"])
        try await store.completeSearchIndex()
        try await receive(store, from: carol, stream: 5, after: 2, texts: ["gamma unindexed"])
        // Carol's messages are the newest rows, one of them not indexed yet.
        try await store.forget(carol, purge: true)
        try await checkIndex(store)
        try await receive(store, from: bob, stream: 5, after: 1, texts: ["alpha again"])
        #expect(try await texts(store, "alpha") == ["alpha again", "alpha from bob"])
        #expect(try await texts(store, "gamma").isEmpty)
        try await checkIndex(store)
    }

    @Test func conversationsCountUnreadThroughReadsAndDeletes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.addPeer(carol, keyTag: "C", name: "carol", at: 1)
        try await receive(store, from: bob, texts: ["1", "2", "3"], at: 200)
        try await receive(store, from: carol, texts: ["a", "b"], at: 210)
        _ = try await store.enqueue(to: bob, texts: ["mine"], at: 220)
        func unread() async throws -> [PeerKey: Int] {
            Dictionary(
                uniqueKeysWithValues: try await store.conversations(archived: false).map {
                    ($0.peer, $0.unread)
                })
        }
        #expect(try await unread() == [bob: 3, carol: 2])
        _ = try await store.markRead(peer: bob, at: 230)
        #expect(try await unread() == [bob: 0, carol: 2])
        _ = try await store.markRead(peer: bob, at: 231)  // nothing left: no change
        try await receive(store, from: bob, stream: 5, after: 3, texts: ["4"], at: 240)
        #expect(try await unread() == [bob: 1, carol: 2])
        try await store.forget(carol, purge: true)
        #expect(try await unread() == [bob: 1])
        // Whatever happened, the column equals the count it stands for.
        let counted = try await store.unreadCount(peer: bob)
        #expect(counted == 1)
    }

    /// A v4 store (every message indexed by the old trigger, some unread) opens with v5: its
    /// index is complete as it is (nothing indexed twice), its unread counts are the counts.
    @Test func aVersion4StoreKeepsItsIndexAndGainsItsUnreadCounts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let old = try MessageStore.open(
                path: directory.storePath,
                schemaUpTo: "v4: contacts, message requests, key changes")
            try await old.addPeer(bob, keyTag: "B", name: "bob", at: 1)
            try await old.addPeer(carol, keyTag: "C", name: "carol", at: 1)
            try await receive(old, from: bob, texts: ["old news", "more news"], at: 100)
            try await receive(old, from: carol, texts: ["news from carol"], at: 110)
            // As a v4 daemon marked them read (the statements of today know later columns).
            try await old.pool.write { db in
                try db.execute(
                    sql: "UPDATE messages SET read_at = 120 WHERE pk = ? AND direction = 0",
                    arguments: [carol.blob])
            }
            try old.close()
        }
        let store = try MessageStore.open(path: directory.storePath)
        #expect(try await store.messagesAwaitingIndex() == 0)
        try await checkIndex(store)
        #expect(try await texts(store, "news").count == 3)
        let inbox = try await store.conversations(archived: false)
        #expect(inbox.map(\.peer) == [carol, bob])
        #expect(inbox.map(\.unread) == [0, 2])
    }
}

/// `groups()` is cached (`GroupsCache`) and every write to a group is seen at once.
@Suite("Groups read through their cache")
struct GroupsCacheTests {
    @Test func aSavedOrAcceptedGroupIsSeenByTheNextRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let own = testKey(9)
        let store = try await openStoreWithPeer(directory, peer: bob)
        #expect(try await store.groups().isEmpty)  // an empty list is cached too
        let first = GroupUpdate(id: .random(), version: 1, name: "ops", members: [own, bob])
        #expect(
            try await store.saveGroup(
                StoredGroup(state: first, basis: [], updatedAt: 1, requestFrom: bob),
                recipients: [bob], expectedVersion: nil, changedBy: bob))
        #expect(try await store.groups().map(\.state.id) == [first.id])
        #expect(try await store.groups().first?.requestFrom == bob)
        #expect(try await store.acceptGroupRequest(first.id))
        #expect(try await store.groups().first?.requestFrom == nil)
        let renamed = GroupUpdate(id: first.id, version: 2, name: "ops-2", members: [own, bob])
        #expect(
            try await store.saveGroup(
                StoredGroup(state: renamed, basis: [], updatedAt: 2), recipients: [bob],
                expectedVersion: 1, changedBy: own))
        #expect(try await store.groups().map(\.state.name) == ["ops-2"])
    }

    /// A group write's commit invalidates the cache before `onEventsCommitted` runs: a
    /// `watch` stream woken by its `group.changed` event reads the group as committed (found
    /// when a chat's header kept the membership from before a removal).
    @Test func aGroupWritesCommitInvalidatesTheCacheBeforeItsEventIsAnnounced() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let own = testKey(9)
        let store = try await openStoreWithPeer(directory, peer: bob)
        let first = GroupUpdate(id: .random(), version: 1, name: "ops", members: [own, bob])
        #expect(
            try await store.saveGroup(
                StoredGroup(state: first, basis: [], updatedAt: 1), recipients: [bob],
                expectedVersion: nil, changedBy: own))
        #expect(try await store.groups().map(\.state.version) == [1])  // cached now
        let cachedWhenAnnounced = Mutex<[StoredGroup]??>(nil)
        store.onEventsCommitted = {
            cachedWhenAnnounced.withLock { $0 = .some(store.groupsCache.snapshot().groups) }
        }
        let second = GroupUpdate(id: first.id, version: 2, name: "ops", members: [own])
        #expect(
            try await store.saveGroup(
                StoredGroup(state: second, basis: [], updatedAt: 2), recipients: [bob],
                expectedVersion: 1, changedBy: own))
        let seen = try #require(cachedWhenAnnounced.withLock { $0 })
        #expect(seen == nil, "the event was announced with the cache still holding version 1")
        #expect(try await store.groups().map(\.state.version) == [2])
    }
}
