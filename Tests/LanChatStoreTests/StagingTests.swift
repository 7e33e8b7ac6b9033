import Foundation
import GRDB
import LanChatCore
import Testing

@testable import LanChatStore

/// Received batches staged (`storeReceived`), then stored as messages (schema v9).
@Suite struct StagingTests {
    let bob = testKey(2)

    /// A staged batch is durable with its cursor, and every read sees its messages at once:
    /// the read stores the stage first.
    @Test func readsSeeStagedMessagesAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await stage(store, seqs: 1...40)
        #expect(store.stagedMessages == 40)
        #expect(try await store.incomingCursor(from: bob).delivered == 40)
        // The cursor and the outbox are read without storing the stage.
        #expect(store.stagedMessages == 40)
        let history = try await store.history(with: bob, limit: 100).messages
        #expect(history.map(\.seq) == Array(1...40))
        #expect(history.allSatisfy { $0.receivedAt == 200 })
        #expect(store.stagedMessages == 0)
        #expect(try await stagedRows(store) == 0)
        #expect(try await store.unreadCount(peer: bob) == 40)
        #expect(try await messageEvents(store) == 40)
    }

    /// What a crash leaves staged is stored when the store opens next, exactly once, with its
    /// events and conversation; nothing stays staged.
    @Test func aCrashLeavesNothingStagedAfterTheNextOpen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let crashed = try TemporaryDirectory()
        defer { crashed.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await stage(store, seqs: 1...40)
        try await stage(store, seqs: 41...45)
        // The files as a crash would leave them: the staged commits are in the WAL.
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(
                atPath: directory.storePath + suffix, toPath: crashed.storePath + suffix)
        }
        let reopened = try MessageStore.open(path: crashed.storePath)
        #expect(reopened.stagedMessages == 0)
        #expect(try await stagedRows(reopened) == 0)
        #expect(
            try await reopened.history(with: bob, limit: 100).messages.map(\.seq) == Array(1...45))
        #expect(try await messageEvents(reopened) == 45)
        #expect(try await reopened.conversations(archived: false).map(\.unread) == [45])
        #expect(try await reopened.incomingCursor(from: bob).delivered == 45)
        try reopened.close()
        try store.close()
    }

    /// A message written after a staged batch comes after it in the conversation (the write
    /// stores the stage first); a batch that repeats stored ids stores them once.
    @Test func aReplyComesAfterTheStagedQuestionAndRepeatsAreStoredOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let first = incomingRecords(stream: 5, seqs: 1...40)
        try await store.storeReceived(
            from: bob, records: first, cursor: IncomingCursor(stream: 5, delivered: 40, read: 0),
            at: 200)
        #expect(store.stagedMessages == 40)
        _ = try await store.enqueue(to: bob, texts: ["the answer"], at: 300)
        #expect(store.stagedMessages == 0)
        // The same ids again (a peer that lost its stream), and one new message; then one
        // more after it while those are staged: staged too, to keep its place.
        try await store.storeReceived(
            from: bob, records: first + incomingRecords(stream: 5, seqs: 41...41),
            cursor: IncomingCursor(stream: 5, delivered: 41, read: 0), at: 400)
        try await store.storeReceived(
            from: bob, records: incomingRecords(stream: 5, seqs: 42...42),
            cursor: IncomingCursor(stream: 5, delivered: 42, read: 0), at: 500)
        #expect(store.stagedMessages == 42)
        let texts = try await store.history(with: bob, limit: 100).messages.map(\.text)
        #expect(texts == (1...40).map { "m\($0)" } + ["the answer", "m41", "m42"])
    }

    /// A single message (a conversation) is stored as a message at once, not staged.
    @Test func singleMessagesAreNotStaged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await stage(store, seqs: 1...1)
        #expect(store.stagedMessages == 0)
        #expect(try await stagedRows(store) == 0)
        #expect(try await messageEvents(store) == 1)
    }

    /// `storeStaged` stores at most `stagedBatchesPerTransaction` batches at a time, oldest
    /// first; small batches that follow a staged one are staged too; a batch of no message
    /// saves only the cursor.
    @Test func batchesAreStoredOldestFirstInBoundedTransactions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let perTransaction = MessageStore.stagedBatchesPerTransaction
        try await stage(store, seqs: 1...32)
        for batch in 0..<(perTransaction + 3) {
            let first = UInt64(33 + batch * 2)
            try await stage(store, seqs: first...(first + 1))
        }
        let last = UInt64(32 + (perTransaction + 3) * 2)
        try await store.storeReceived(
            from: bob, records: [], cursor: IncomingCursor(stream: 5, delivered: last + 1, read: 0),
            at: 300)
        #expect(store.stagedMessages == Int(last))
        #expect(try await store.storeStaged() == 32 + (perTransaction - 1) * 2)
        #expect(try await store.storeStaged() == 4 * 2)
        #expect(try await store.storeStaged() == 0)
        let seqs = try await store.history(with: bob, limit: 200).messages.map(\.seq)
        #expect(seqs == Array(1...last))
        #expect(try await store.incomingCursor(from: bob).delivered == last + 1)
    }

    /// A disk too full to store the stage loses nothing: reads go on without the staged
    /// messages, and they appear once there is room.
    @Test func aFullDiskKeepsTheStageAndReadsGoOn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let big = (1...40).map { _ in String(repeating: "x", count: 15_000) }
        try await store.storeReceived(
            from: bob, records: incomingRecords(stream: 5, seqs: 1...40, texts: big),
            cursor: IncomingCursor(stream: 5, delivered: 40, read: 0), at: 200)
        // Not `pageCount()`: a read, which would store the stage first.
        let pages = try await store.pool.read { db in
            try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        }
        try await store.executeForTesting("PRAGMA max_page_count = \(pages)")
        await #expect(throws: StoreError.self) { try await store.storeStaged() }
        #expect(try await store.history(with: bob, limit: 100).messages.isEmpty)
        #expect(store.stagedMessages == 40)
        try await store.executeForTesting("PRAGMA max_page_count = 1000000")
        #expect(try await store.history(with: bob, limit: 100).messages.count == 40)
        #expect(store.stagedMessages == 0)
    }

    /// The staged encoding reads back what it wrote (group ids, empty and multi-byte texts),
    /// and anything else is `corrupt`, never a crash.
    @Test func stagedRecordsRoundTripAndRefuseDamage() throws {
        var records = incomingRecords(stream: 7, seqs: 1...3, texts: ["", "Grüße 👋", "m"])
        records[1].message.group = Array(repeating: 0xAB, count: 16)
        records[1].message.sentAt = -5
        let bytes = StagedRecords.encode(records)
        #expect(try StagedRecords.decode(bytes) == records)
        var generator = SystemRandomNumberGenerator()
        for cut in 0..<bytes.count {
            #expect(throws: StoreError.self) { try StagedRecords.decode(Array(bytes[..<cut])) }
        }
        for _ in 0..<2_000 {
            var damaged = bytes
            damaged[Int.random(in: 0..<damaged.count, using: &generator)] = .random(
                in: 0...255, using: &generator)
            _ = try? StagedRecords.decode(damaged)
        }
        #expect(throws: StoreError.self) { try StagedRecords.decode(bytes + [0]) }
        #expect(throws: StoreError.self) { try StagedRecords.decode([2] + bytes.dropFirst()) }
    }

    private func stage(_ store: MessageStore, seqs: ClosedRange<UInt64>) async throws {
        try await store.storeReceived(
            from: bob, records: incomingRecords(stream: 5, seqs: seqs),
            cursor: IncomingCursor(stream: 5, delivered: seqs.upperBound, read: 0), at: 200)
    }

    private func messageEvents(_ store: MessageStore) async throws -> Int {
        try await store.events(after: 0, limit: 1_000).filter { $0.message != nil }.count
    }

    private func stagedRows(_ store: MessageStore) async throws -> Int? {
        try await store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM incoming_staged")
        }
    }
}
