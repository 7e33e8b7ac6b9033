import Foundation
import GRDB
import LanChatCore
import Testing

@testable import LanChatStore

@Suite("Store schema versions and damaged files")
struct MigrationTests {
    @Test func anEmptyFileIsMigratedToTheCurrentSchemaAndReopensUnchanged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try MessageStore.open(path: directory.storePath)
        let first = try appliedMigrations(directory.storePath)
        #expect(
            first == [
                "v1: peers, streams, cursors, messages", "v2: store identity",
                "v3: conversations, event log, search",
                "v4: contacts, message requests, key changes",
                "v5: search after the write, unread counts", "v6: groups",
                "v7: group conversations, group events, group requests",
                "v8: set-based bookkeeping for batches", "v9: received batches staged",
                "v10: settled key changes", "v11: replaced keys", "v12: store generation",
                "v13: a removed member's last membership",
                "v14: Chinese, Japanese and Korean search", "v15: emoji search",
            ])
        _ = try MessageStore.open(path: directory.storePath)
        #expect(try appliedMigrations(directory.storePath) == first)
    }

    @Test func aStoreFromANewerVersionIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try MessageStore.open(path: directory.storePath)
        let queue = try DatabaseQueue(path: directory.storePath)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: future')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.storePath))
        #expect { try MessageStore.open(path: directory.storePath) } throws: { error in
            (error as? StoreError)?.kind == .tooNew
        }
        // Refused before anything is written (QA: the file changed all the same).
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.storePath)) == before)
    }

    /// A log copied in from another store is well formed, so SQLite would take it: its pages
    /// make this store's rows and indexes disagree. A log left non-empty gets the full
    /// integrity check, and the refused store and that log are left as they were (QA).
    @Test func aLogFromAnotherStoreIsRefusedAndLeftAlone() async throws {
        let mine = try TemporaryDirectory()
        let other = try TemporaryDirectory()
        defer {
            mine.remove()
            other.remove()
        }
        let store = try await openStoreWithPeer(mine, peer: testKey(2))
        _ = try await store.enqueue(to: testKey(2), texts: ["mine"], at: 2_000)
        try store.close()
        try await openStoreWithPeer(other, peer: testKey(3)).close()
        // The other store's log holds only its latest transaction, as after a crash: its
        // peer's row seen again, so the table's page without the pages of its indexes.
        let foreign = try MessageStore.open(path: other.storePath)
        try await foreign.recordPeerSeen(
            testKey(3), keyTag: "TEST-TAG3", name: "bob", status: "away", statusText: "later",
            endpoint: nil, at: 3_000)
        let log = try Data(contentsOf: URL(fileURLWithPath: other.storePath + "-wal"))
        #expect(!log.isEmpty)
        try log.write(to: URL(fileURLWithPath: mine.storePath + "-wal"))
        let before = try Data(contentsOf: URL(fileURLWithPath: mine.storePath))
        #expect { try MessageStore.open(path: mine.storePath) } throws: { error in
            (error as? StoreError)?.kind == .corrupt
                && "\(error)".contains("fails its integrity check")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: mine.storePath)) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: mine.storePath + "-wal")) == log)
        // Without that log, the store opens as it was.
        #expect(unlink(mine.storePath + "-wal") == 0)
        unlink(mine.storePath + "-shm")
        let reopened = try MessageStore.open(path: mine.storePath)
        #expect(
            try await reopened.history(with: testKey(2), limit: 5).messages.map(\.text) == ["mine"])
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: directory.storePath))
        #expect { try MessageStore.open(path: directory.storePath) } throws: { error in
            (error as? StoreError)?.kind == .corrupt
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.storePath)) == garbage)
    }

    @Test func aDamagedPageFailsTheIntegrityCheck() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try await openStoreWithPeer(directory, peer: testKey(2))
            _ = try await store.enqueue(
                to: testKey(2),
                texts: (0..<300).map { "message \($0) " + String(repeating: "z", count: 200) },
                at: 1)
            try await store.executeForTesting("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // Overwrite the middle of the file (an index or table page) with garbage.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: directory.storePath))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        #expect { try MessageStore.open(path: directory.storePath) } throws: { error in
            (error as? StoreError)?.kind == .corrupt
        }
    }

    /// A store as today's release writes it (schema v2, today's write paths: messages both
    /// ways, read and unread, every status) opens with v3 and loses nothing; its
    /// conversations and search index are filled from the old messages.
    @Test func aVersion2StoreGainsConversationsAndSearchAndLosesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let carol = testKey(3)
        let dave = testKey(4)
        var before: [PeerKey: [StoredMessage]] = [:]
        let storeID: String
        do {
            let old = try MessageStore.open(
                path: directory.storePath, schemaUpTo: "v2: store identity")
            for peer in [bob, carol, dave] { try await insertVersion2Peer(old, peer) }
            try await receive(old, from: bob, texts: ["Café tomorrow?", "bring the keys"], at: 100)
            let sent = try await old.enqueue(
                to: bob, texts: ["yes", "deploy first", "ok"], at: 110)
            _ = try await old.markDelivered(peer: bob, stream: sent[0].stream, upTo: 1, at: 120)
            _ = try await old.markReadByPeer(peer: bob, stream: sent[0].stream, upTo: 1, at: 121)
            _ = try await old.markFailed(peer: bob, stream: sent[0].stream, seq: 2, reason: "no")
            try await receive(old, from: carol, stream: 9, texts: ["the build failed"], at: 90)
            // Today nothing marks incoming messages read; a v2 store may still hold such rows.
            try await old.executeForTesting(
                "UPDATE messages SET read_at = 130 WHERE text = 'Café tomorrow?'")
            for peer in [bob, carol, dave] {
                before[peer] = try await storedRows(old, with: peer)
            }
            storeID = try #require(try MessageStore.contents(of: old.pool, path: "").storeID)
            try old.close()
        }
        #expect(try appliedMigrations(directory.storePath).count == 2)

        let store = try MessageStore.open(path: directory.storePath)
        #expect(try appliedMigrations(directory.storePath).count == 15)
        for peer in [bob, carol, dave] {
            #expect(try await store.history(with: peer, limit: 100).messages == before[peer])
        }
        #expect(try MessageStore.contents(of: store.pool, path: "").storeID == storeID)
        #expect(try await store.counts() == .init(queued: 1, unread: 2))
        #expect(
            try await store.incomingCursor(from: carol)
                == IncomingCursor(stream: 9, delivered: 1, read: 0))
        #expect(try await store.peers().count == 3)

        let inbox = try await store.conversations(archived: false)
        #expect(inbox.map(\.peer) == [bob, carol])
        #expect(inbox.map(\.unread) == [1, 1])
        #expect(inbox.map(\.updatedAt) == [110, 90])
        #expect(inbox[0].lastMessage == before[bob]?.last)
        #expect(
            try await store.search(SearchQuery(parsing: "cafe"), limit: 10).map(\.text) == [
                "Café tomorrow?"
            ])
        #expect(
            try await store.search(SearchQuery(parsing: "\"build failed\""), limit: 10).count == 1)
        #expect(try await store.search(SearchQuery(parsing: "depl*"), limit: 10).count == 1)

        // The log starts empty and the old rows are indexed exactly once.
        #expect(try await store.eventBounds() == (nil, 0))
        let new = try await store.enqueue(to: carol, texts: ["fresh build"], at: 200)
        #expect(try await store.events(after: 0, limit: 10).map(\.message?.id) == [new[0].id])
        #expect(try await store.search(SearchQuery(parsing: "build"), limit: 10).count == 2)
    }

    /// A v3 store (today's release: messages both ways, the event log, an alias, a block)
    /// opens with v4 and loses nothing: peers we wrote to become contacts, no request and no
    /// key change is pending, and from then on a request keeps its messages out of the inbox.
    @Test func aVersion3StoreGainsContactsAndRequestsAndLosesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bob = testKey(2)
        let carol = testKey(3)
        let dave = testKey(4)
        var before: [PeerKey: [StoredMessage]] = [:]
        let events: [StoredEvent]
        do {
            let old = try MessageStore.open(
                path: directory.storePath, schemaUpTo: "v3: conversations, event log, search")
            for peer in [bob, carol, dave] {
                try await old.addPeer(peer, keyTag: "TAG", name: "n\(peer.bytes[0])", at: 1)
            }
            _ = try await old.enqueue(to: bob, texts: ["hi bob"], at: 100)
            _ = try await receive(old, from: carol, texts: ["hi from carol"], at: 110)
            try await old.executeForTesting("UPDATE peers SET alias = 'Dee', trust = 'blocked'")
            for peer in [bob, carol, dave] {
                before[peer] = try await storedRows(old, with: peer)
            }
            events = try await old.events(after: 0, limit: 100)
            try old.close()
        }
        #expect(try appliedMigrations(directory.storePath).count == 3)

        let store = try MessageStore.open(path: directory.storePath)
        #expect(try appliedMigrations(directory.storePath).count == 15)
        for peer in [bob, carol, dave] {
            #expect(try await store.history(with: peer, limit: 100).messages == before[peer])
        }
        #expect(try await store.events(after: 0, limit: 100) == events)
        let peers = Dictionary(uniqueKeysWithValues: try await store.peers().map { ($0.key, $0) })
        #expect(peers[bob]?.contact == true)
        #expect(peers[carol]?.contact == false)
        #expect(peers[dave]?.alias == "Dee" && peers[dave]?.trust == .blocked)
        #expect(peers.values.allSatisfy { $0.requestSince == nil && $0.keyChangedFrom == nil })
        #expect(try await store.requests().isEmpty)
        #expect(try await store.counts() == .init(queued: 1, unread: 1))

        // The new trigger: a request's message is stored but logs no message.received.
        #expect(try await store.openRequest(dave, at: 120))
        let cursor = try await store.eventBounds().newest
        _ = try await receive(store, from: dave, texts: ["let me in"], at: 130)
        #expect(try await store.events(after: cursor, limit: 10).isEmpty)
        #expect(try await store.conversations(archived: false).map(\.peer) == [carol, bob])
    }

    /// Not a pass/fail timing (debug builds on a shared machine), a record of what the v3
    /// triggers add to the hot paths: 10 000 messages stored each way, before and after.
    @Test func storingTenThousandMessagesBeforeAndAfterTheV3Triggers() async throws {
        var lines: [String] = []
        for schema in ["v2: store identity", nil] {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let store = try MessageStore.open(path: directory.storePath, schemaUpTo: schema)
            let bob = testKey(2)
            try await insertVersion2Peer(store, bob)
            let clock = ContinuousClock()
            let incoming = try await clock.measure {
                for batch in 0..<40 {
                    let first = UInt64(batch * 250 + 1)
                    _ = try await store.commitIncoming(
                        from: bob,
                        records: incomingRecords(
                            stream: 5, seqs: first...(first + 249),
                            texts: (0..<250).map { "incoming message number \($0) about the build" }
                        ),
                        cursor: IncomingCursor(stream: 5, delivered: first + 249, read: 0), at: 2)
                }
            }
            let outgoing = try await clock.measure {
                for batch in 0..<40 {
                    _ = try await store.enqueue(
                        to: bob, texts: (0..<250).map { "outgoing \($0) of batch \(batch)" }, at: 3)
                }
            }
            #expect(
                try await store.pool.read {
                    try Int.fetchOne($0, sql: "SELECT count(*) FROM messages")
                } == 20_000)
            if schema == nil {
                #expect(
                    try await store.search(SearchQuery(parsing: "build"), limit: 20_000).count
                        == 10_000)
                #expect(try await store.eventBounds().newest == 20_000)
            }
            lines.append(
                "\(schema ?? "v3"): commitIncoming \(incoming), enqueue \(outgoing) (10 000 each, 250 a batch)"
            )
        }
        print(lines.joined(separator: "\n"))
    }

    /// A peer's messages oldest first, read with the columns every schema version has: the
    /// "before" of an upgrade test. Today's `history` needs today's schema (it leaves group
    /// rows out), so it only runs after the migration.
    func storedRows(_ store: MessageStore, with peer: PeerKey) async throws -> [StoredMessage] {
        try await store.pool.read { db in
            try StoredMessage.fetchAll(
                db,
                sql: "SELECT \(StoredMessage.columns) FROM messages WHERE pk = ? ORDER BY rowid",
                arguments: [peer.blob])
        }
    }

    /// `addPeer` as a v2 store's release wrote it (today's logs `peer.new`, a v3 table).
    func insertVersion2Peer(_ store: MessageStore, _ peer: PeerKey) async throws {
        let hex = peer.bytes.map { String(format: "%02x", $0) }.joined()
        try await store.executeForTesting(
            "INSERT INTO peers (pk, id, key_tag, name, first_seen) VALUES (x'\(hex)', '\(peer.id)', 'TAG', 'name', 1)"
        )
    }

    func appliedMigrations(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
    }
}
