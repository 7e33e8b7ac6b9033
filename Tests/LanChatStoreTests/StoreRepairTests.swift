import Foundation
import GRDB
import LanChatCore
import Testing

@testable import LanChatStore

/// `lanchatd --repair-store` (`StoreRepair`): a damaged store is copied into a new one, the
/// damaged file kept beside it, and the new store opens with what could be read.
@Suite("Store repair")
struct StoreRepairTests {
    static let peer = testKey(2)
    static let received = 1_500

    /// A closed store with a marker: `received` messages from `peer` (the first 500 read),
    /// three sent to it, and its conversation archived.
    func filledStore(_ directory: TemporaryDirectory) async throws {
        let marker = directory.path + "/store.marker"
        let store = try MessageStore.open(path: directory.storePath, marker: marker)
        try await store.recordPeerSeen(
            Self.peer, keyTag: "TEST-TAG2", name: "bob", status: nil, statusText: nil,
            endpoint: nil, at: 1_000)
        for first in stride(from: 0, to: Self.received, by: 500) {
            try await receive(
                store, from: Self.peer, after: UInt64(first),
                texts: (first + 1...first + 500).map {
                    "received \($0) " + String(repeating: "x", count: 60)
                })
            if first == 0 { _ = try await store.markRead(peer: Self.peer, at: 6_000) }
        }
        _ = try await store.enqueue(to: Self.peer, texts: ["one", "two", "three"], at: 5_000)
        _ = try await store.setArchived(peer: Self.peer, true)
        try store.close()
    }

    /// Overwrites the middle of one page of `name` (an index or a table) with bytes that are
    /// not a b-tree page: `leaf` picks the leaf page, counted from the first.
    func damage(_ path: String, _ name: String, leaf: Int) throws {
        let queue = try DatabaseQueue(path: path)
        let page = try queue.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'
                    ORDER BY pageno LIMIT 1 OFFSET ?
                    """,
                arguments: [name, leaf])
        }
        try queue.close()
        let pageNumber = try #require(page, "no leaf page \(leaf) of \(name)")
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64((pageNumber - 1) * 4_096 + 8))
        try file.write(
            contentsOf: Data((0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }))
    }

    /// How many leaf pages `name` (a table or an index) has.
    func leaves(_ path: String, of name: String) throws -> Int {
        try count(
            path, "SELECT count(*) FROM dbstat WHERE name = '\(name)' AND pagetype = 'leaf'")
    }

    func count(_ path: String, _ sql: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    func open(_ directory: TemporaryDirectory) throws -> MessageStore {
        try MessageStore.open(path: directory.storePath, marker: directory.path + "/store.marker")
    }

    func repair(_ directory: TemporaryDirectory) throws -> StoreRepair.Report? {
        try StoreRepair.repairIfDamaged(
            path: directory.storePath, marker: directory.path + "/store.marker",
            now: 1_795_834_197_000, keyTag: { _ in "TAG-BACK" })
    }

    @Test func aSoundStoreIsLeftAsItIs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.storePath))
        #expect(try repair(directory) == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.storePath)) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .allSatisfy { !$0.contains("damaged") })
    }

    /// Only an index is damaged: every row is read back, the archive and read state with it,
    /// and search works again once the daemon's indexer has run.
    @Test func aDamagedIndexLosesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        try damage(directory.storePath, "messages_by_conversation", leaf: 1)
        #expect(throws: StoreError.self) { try open(directory) }
        #expect(chmod(directory.storePath, 0o644) == 0)  // a copy restored with the umask's

        let report = try #require(try repair(directory))
        #expect(report.unreadable.isEmpty, "\(report.unreadable)")
        #expect(report.messages == Self.received + 3)
        #expect(report.damagedCopy == directory.storePath + ".damaged-20261128T024957Z")
        #expect(FileManager.default.fileExists(atPath: report.damagedCopy))
        // The damaged copy keeps messages: the user's alone (found by QA: 0644 aside).
        var aside = stat()
        #expect(stat(report.damagedCopy, &aside) == 0 && aside.st_mode & 0o777 == 0o600)
        let mode =
            try FileManager.default.attributesOfItem(atPath: directory.storePath)[
                .posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let store = try open(directory)
        #expect(store.warnings.isEmpty, "\(store.warnings)")
        let conversation = try #require(try await store.conversations(archived: true).first)
        #expect(conversation.unread == Self.received - 500)
        #expect(try await store.history(with: Self.peer, limit: 5).messages.last?.text == "three")
        #expect(try await store.completeSearchIndex() == Self.received + 3)
        let found = try await store.search(SearchQuery(parsing: "received"), limit: 5_000)
        #expect(found.count == Self.received)
        try store.close()
    }

    /// The CJK search index (schema v14) is left out of the copy like the other one, and
    /// the indexer fills both again: only the messages with CJK text go into it.
    @Test func aRepairedStoreFindsCJKWordsAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        do {
            let store = try open(directory)
            _ = try await store.enqueue(
                to: Self.peer, texts: ["東京で会いましょう", "서울에서"], at: 7_000)
            try await store.completeSearchIndex()
            try store.close()
        }
        try damage(directory.storePath, "messages_by_conversation", leaf: 1)
        let report = try #require(try repair(directory))
        #expect(report.unreadable.isEmpty, "\(report.unreadable)")
        let store = try open(directory)
        #expect(try await store.completeSearchIndex() == Self.received + 5)
        let found = try await store.search(SearchQuery(parsing: "東京"), limit: 10)
        #expect(found.map(\.text) == ["東京で会いましょう"])
        #expect(try await store.search(SearchQuery(parsing: "서울"), limit: 10).count == 1)
        try await checkSearchIndexes(store)
        try store.close()
    }

    /// A page of messages is damaged: the rows on it are lost, every other one is kept, and
    /// the counts follow what was kept; the history check then restarts the streams.
    @Test func aDamagedPageOfMessagesLosesOnlyItsRows() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        let streamBefore = try count(directory.storePath, "SELECT stream FROM out_streams")
        try damage(directory.storePath, "messages", leaf: 5)

        let report = try #require(try repair(directory))
        #expect(report.unreadable.count == 1 && report.unreadable[0].hasPrefix("messages:"))
        let kept = try count(directory.storePath, "SELECT count(*) FROM messages")
        #expect(report.messages == kept)
        #expect(kept < Self.received + 3 && kept > Self.received - 100, "kept \(kept)")
        // The newest and the oldest are on either side of the damage.
        #expect(
            try count(directory.storePath, "SELECT count(*) FROM messages WHERE text = 'three'")
                == 1)
        #expect(try count(directory.storePath, "SELECT min(rowid) FROM messages") == 1)
        #expect(try count(directory.storePath, "SELECT stream FROM out_streams") != streamBefore)
        #expect(try count(directory.storePath, "PRAGMA foreign_key_check") == -1)

        let store = try open(directory)
        #expect(store.warnings.contains { $0.contains("Every outgoing stream starts afresh") })
        let conversation = try #require(try await store.conversations(archived: true).first)
        let unread = try count(
            directory.storePath,
            "SELECT count(*) FROM messages WHERE direction = 0 AND read_at IS NULL")
        #expect(conversation.unread == unread)
        let state = try #require(try await store.outgoingState(for: Self.peer))
        let queued = try await store.outgoing(
            to: Self.peer, stream: state.stream, from: 1, limit: 10)
        #expect(queued.map(\.text) == ["one", "two", "three"])
        try store.close()
    }

    /// Two pages of messages apart are damaged: what lies between them is read too, not only
    /// what the passes from either end reach.
    @Test func rowsBetweenTwoDamagedPagesAreKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        let leafCount = try leaves(directory.storePath, of: "messages")
        try damage(directory.storePath, "messages", leaf: 3)
        try damage(directory.storePath, "messages", leaf: leafCount - 4)

        let report = try #require(try repair(directory))
        let kept = try count(directory.storePath, "SELECT count(*) FROM messages")
        // Two leaves of about 40 rows each are lost, no more.
        #expect(kept > Self.received + 3 - 120 && kept < Self.received + 3, "kept \(kept)")
        #expect(report.messages == kept)
        // Rows from the middle, between the two damaged pages.
        #expect(
            try count(
                directory.storePath,
                "SELECT count(*) FROM messages WHERE text LIKE 'received 750 %'") == 1)
    }

    /// Rows that break a constraint of the new store (as a damaged page's values can) are left
    /// out one by one; the rows after them are still read in the same pass.
    @Test func anInvalidRowIsLeftOutAndTheRowsAfterItKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        let queue = try DatabaseQueue(path: directory.storePath)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            for fill: UInt8 in 10...14 {
                let key = testKey(fill)
                try db.execute(
                    sql: """
                        INSERT INTO peers (pk, id, key_tag, first_seen, trust)
                        VALUES (?, ?, 'TAG', 1, ?)
                        """,
                    arguments: [key.blob, key.id, fill.isMultiple(of: 2) ? "unverified" : "bogus"])
            }
        }
        try queue.close()
        try damage(directory.storePath, "messages_by_conversation", leaf: 1)

        let report = try #require(try repair(directory))
        #expect(report.unreadable == ["peers: 2 rows refused as invalid"], "\(report.unreadable)")
        let kept = try count(
            directory.storePath, "SELECT count(*) FROM peers WHERE key_tag = 'TAG'")
        #expect(kept == 3)
        #expect(report.messages == Self.received + 3)
    }

    /// The peers' page is damaged: the peer comes back from its messages, nameless and
    /// unverified, with all of its history.
    @Test func aLostPeerComesBackFromItsMessages() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        try damage(directory.storePath, "peers", leaf: 0)

        let report = try #require(try repair(directory))
        #expect(
            report.unreadable.contains { $0.contains("1 peer recreated") }, "\(report.unreadable)")
        #expect(report.messages == Self.received + 3)
        #expect(
            try count(
                directory.storePath,
                "SELECT count(*) FROM peers WHERE key_tag = 'TAG-BACK' AND name = '' AND trust = 'unverified'"
            )
                == 1)
        let store = try open(directory)
        #expect(try await store.history(with: Self.peer, limit: 5).messages.count == 5)
        try store.close()
    }

    /// The newest page of the event log is lost: the cursors it held must not be given again,
    /// or a `watch --since` resuming from one would take new events for ones it had.
    @Test func cursorsOfALostNewestEventPageAreNotGivenAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        let newestGiven = try count(directory.storePath, "SELECT max(cursor) FROM events")
        try damage(
            directory.storePath, "events", leaf: try leaves(directory.storePath, of: "events") - 1)

        let report = try #require(try repair(directory))
        #expect(report.unreadable.contains { $0.hasPrefix("events:") }, "\(report.unreadable)")
        #expect(try count(directory.storePath, "SELECT max(cursor) FROM events") > newestGiven)
        let store = try open(directory)
        try await store.logPresence(Self.peer, .offline, at: 9_000)
        let bounds = try await store.eventBounds()
        #expect(bounds.newest > Int64(newestGiven) + 1)
        let logged = try await store.events(after: Int64(newestGiven), limit: 10)
        #expect(logged.last?.type == .peerPresence)
        try store.close()
    }

    /// A group conversation whose row was lost comes back from its messages, with their
    /// unread count, as a 1:1 conversation does.
    @Test func aLostGroupConversationComesBackFromItsMessages() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory)
        let store = try open(directory)
        let id = try #require(GroupID(bytes: [UInt8](repeating: 0x0A, count: 16)))
        let group = GroupUpdate(id: id, version: 1, name: "ops", members: [Self.peer, testKey(9)])
        #expect(
            try await store.saveGroup(
                StoredGroup(state: group, basis: [], updatedAt: 1), recipients: [],
                expectedVersion: nil, changedBy: Self.peer))
        let texts = ["g1", "g2", "g3"]
        let first = UInt64(Self.received)
        _ = try await store.commitIncoming(
            from: Self.peer,
            records: texts.enumerated().map { index, text in
                IncomingRecord(
                    message: WireMessage(
                        stream: 5, seq: first + UInt64(index) + 1, id: .random(), sentAt: 100,
                        group: group.id.bytes, text: text),
                    text: text)
            },
            cursor: IncomingCursor(stream: 5, delivered: first + 3, read: 0), at: 7_000)
        try store.close()
        let lastGroupMessage = try count(
            directory.storePath, "SELECT max(rowid) FROM messages WHERE group_id IS NOT NULL")
        try damage(directory.storePath, "group_conversations", leaf: 0)

        let report = try #require(try repair(directory))
        #expect(report.unreadable.contains { $0.hasPrefix("group_conversations:") })
        #expect(
            try count(directory.storePath, "SELECT unread FROM group_conversations") == 3)
        #expect(
            try count(directory.storePath, "SELECT last_message FROM group_conversations")
                == lastGroupMessage)
        // The 1:1 conversation keeps its count (the first 500 were read).
        #expect(
            try count(directory.storePath, "SELECT unread FROM conversations")
                == Self.received - 500)
    }

    /// A directory where the store belongs is said to be one, not "disk I/O error" (QA),
    /// by the repair and by the start alike.
    @Test func aDirectoryInTheStoresPlaceIsSaidToBeOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(
            atPath: directory.storePath, withIntermediateDirectories: false)
        for attempt in [{ _ = try repair(directory) }, { _ = try open(directory) }] {
            let error = try #require(throws: StoreError.self) { try attempt() }
            #expect(error.kind == .unavailable)
            #expect(error.description.contains("is a directory, not a store file"), "\(error)")
        }
    }
}

/// A repair on a disk without room for its copy says so (found by QA: "Transaction was
/// aborted").
@Suite struct StoreRepairRoomTests {
    @Test func aDiskWithoutRoomForTheCopyIsSaidSo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let full = try #require(
            StoreRepair.noRoom(for: Int64.max / 2, beside: directory.storePath))
        #expect(full.description.contains("the disk is full"), "\(full)")
        #expect(full.description.contains("the store was left as it was"), "\(full)")
        #expect(StoreRepair.noRoom(for: 1, beside: directory.storePath) == nil)
    }
}
