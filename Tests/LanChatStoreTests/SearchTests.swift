import Foundation
import LanChatCore
import LanChatTestSupport
import Testing

@testable import LanChatStore

/// Full-text search through the FTS5 index that the schema's triggers keep.
@Suite("Search")
struct SearchTests {
    let bob = testKey(2)
    let carol = testKey(3)

    func texts(_ store: MessageStore, _ query: String, peer: PeerKey? = nil, limit: Int = 50)
        async throws -> [String]
    {
        try await store.search(SearchQuery(parsing: query), peer: peer, limit: limit).map(\.text)
    }

    @Test func searchFoldsCaseAndAccentsAndKnowsPrefixesAndPhrases() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await receive(
            store, from: bob,
            texts: [
                "meet at the cafe", "DEPLOY done", "the build failed again", "failed the build",
            ])
        _ = try await store.enqueue(
            to: bob, texts: ["Café au lait?", "deployment tomorrow"], at: 300)
        #expect(try await texts(store, "Café") == ["Café au lait?", "meet at the cafe"])
        #expect(try await texts(store, "cafe") == ["Café au lait?", "meet at the cafe"])
        #expect(try await texts(store, "deploy") == ["DEPLOY done"])
        #expect(try await texts(store, "DEPLOY") == ["DEPLOY done"])
        #expect(try await texts(store, "depl*") == ["deployment tomorrow", "DEPLOY done"])
        #expect(try await texts(store, "\"build failed\"") == ["the build failed again"])
        #expect(
            try await texts(store, "build failed") == [
                "failed the build", "the build failed again",
            ])
        #expect(try await texts(store, "build failed", limit: 1) == ["failed the build"])
        #expect(try await texts(store, "nothing").isEmpty)
    }

    @Test func searchNarrowsToOneConversation() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.addPeer(carol, keyTag: "C", name: "carol", at: 1)
        try await receive(store, from: bob, texts: ["lunch with bob"])
        try await receive(store, from: carol, texts: ["lunch with carol"])
        #expect(try await texts(store, "lunch", peer: carol) == ["lunch with carol"])
        #expect(try await texts(store, "lunch").count == 2)
        // The 1:1 conversation only: carol's group message and our group copy to her are
        // the group's (found by QA), which `group:` finds.
        let group = GroupID.random()
        _ = try await store.commitIncoming(
            from: carol,
            records: [incomingRecord(seq: 2, group: group, text: "lunch in the group")],
            cursor: IncomingCursor(stream: 5, delivered: 2), at: 300)
        _ = try await store.enqueueGroup(group, to: [carol], texts: ["lunch for all"], at: 400)
        #expect(try await texts(store, "lunch", peer: carol) == ["lunch with carol"])
        let inGroup = try await store.search(
            SearchQuery(parsing: "lunch"), group: group, limit: 50
        ).map(\.text)
        #expect(inGroup == ["lunch for all", "lunch in the group"])
    }

    /// FTS5 syntax is never passed through: operators and SQL are searched as words.
    @Test func operatorsAndSQLAreJustWords() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await receive(store, from: bob, texts: ["cats AND dogs", "cats or dogs", "NEAR me"])
        #expect(try await texts(store, "AND") == ["cats AND dogs"])
        #expect(try await texts(store, "cats OR") == ["cats or dogs"])
        #expect(try await texts(store, "NEAR(cats dogs)").isEmpty)
        #expect(try await texts(store, "text:cats").isEmpty)
        #expect(try await texts(store, "'); DROP TABLE messages; --").isEmpty)
        #expect(try await texts(store, "dogs").count == 2)
    }

    /// Property: any text the parser accepts runs without an FTS5 error on a real store.
    @Test func randomQueriesNeverMakeFTS5Fail() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await receive(store, from: bob, texts: ["alpha beta", "gamma \"delta\" epsilon*"])
        let alphabet = Array(
            "ab \"\"**()^:-+.,;'\\\u{0}\t\nAND OR NOT NEAR{}[]é😀\u{301}\u{200B}\u{E000}")
        var generator = SeededGenerator(seed: 0x5EA2C4)
        var accepted = 0
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let text = String(
                (0..<length).map { _ in
                    alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
                })
            guard let query = try? SearchQuery(parsing: text) else { continue }
            accepted += 1
            do {
                _ = try await store.search(query, limit: 5)
            } catch {
                Issue.record("\(text.debugDescription) → \(query.matchExpression): \(error)")
            }
        }
        #expect(accepted > 1_000)
    }
}
