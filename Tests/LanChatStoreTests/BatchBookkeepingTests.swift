import Foundation
import GRDB
import LanChatCore
import Testing

@testable import LanChatStore

/// Schema v8's set-based bookkeeping (`BatchBookkeeping`) against the per-row triggers it
/// stands in for.
@Suite struct BatchBookkeepingTests {
    static let lastPerRowSchema = "v7: group conversations, group events, group requests"

    /// The same writes on a store of schema v7 (every event and conversation written by the
    /// triggers) and on today's leave the same event log, conversations, group conversations
    /// and message rows: batches received, from a pending request, mixed with group messages
    /// and thinned by duplicates, batches sent, small ones, and every status change.
    @Test func batchesLeaveWhatThePerRowTriggersLeave() async throws {
        var dumps: [[String]] = []
        for schema in [Self.lastPerRowSchema, nil] {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let store = try MessageStore.open(path: directory.storePath, schemaUpTo: schema)
            #expect(store.batchBookkeeping == (schema == nil))
            try await writeEverything(store)
            dumps.append(try await dump(store))
            try store.close()
        }
        #expect(dumps[0].count > 300)
        #expect(dumps[0] == dumps[1])
    }

    /// Large batches do take the set-based path, small ones the triggers: with a trigger that
    /// refuses every row it sees, a batch of 40 is stored and a single message is not.
    @Test func largeBatchesBypassThePerRowTriggers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.executeForTesting(
            """
            DROP TRIGGER messages_inserted;
            CREATE TRIGGER messages_inserted AFTER INSERT ON messages
            WHEN NOT EXISTS (SELECT 1 FROM message_batch) BEGIN
                SELECT RAISE(ABORT, 'a per-row trigger ran');
            END;
            """)
        let texts = (1...40).map { "m\($0)" }
        #expect(try await receive(store, from: bob, texts: texts).count == 40)
        #expect(try await store.enqueue(to: bob, texts: texts, at: 300).count == 40)
        await #expect(throws: StoreError.self) {
            try await receive(store, from: bob, after: 40, texts: ["one"])
        }
        #expect(try await messageEvents(store) == 80)
    }

    /// A batch that fails half-way (an unknown peer: the foreign key refuses its rows) leaves
    /// nothing: no message, no event, and no `message_batch` row, so the triggers are in force
    /// for the next write.
    @Test func aFailedBatchLeavesTheTriggersInForce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        await #expect(throws: StoreError.self) {
            try await receive(store, from: testKey(9), texts: (1...40).map { "m\($0)" })
        }
        #expect(try await batchRows(store) == 0)
        #expect(try await messageEvents(store) == 0)
        try await receive(store, from: bob, texts: ["after the failure"])
        #expect(try await messageEvents(store) == 1)
        #expect(try await store.conversations(archived: false).map(\.peer) == [bob])
    }

    // MARK: the writes

    let bob = testKey(2)
    let carol = testKey(3)
    let dave = testKey(4)
    let group: [UInt8] = Array(repeating: 0x47, count: 16)

    private func writeEverything(_ store: MessageStore) async throws {
        for (index, peer) in [bob, carol, dave].enumerated() {
            try await store.recordPeerSeen(
                peer, keyTag: "TAG\(index)", name: "peer\(index)", status: nil, statusText: nil,
                endpoint: nil, at: 10)
        }
        #expect(try await store.openRequest(dave, at: 50))

        let first = incomingRecords(stream: 5, seqs: 1...40)
        try await commit(store, from: bob, first, delivered: 40, at: 200)
        try await commit(
            store, from: dave, incomingRecords(stream: 6, seqs: 1...40), delivered: 40, at: 210)
        // Every third message of carol's batch is a group message, the last one among them.
        let mixed = incomingRecords(stream: 7, seqs: 1...40).enumerated().map { index, record in
            var message = record.message
            if index % 3 == 0 || index == 39 { message.group = group }
            return IncomingRecord(message: message, text: record.text)
        }
        try await commit(store, from: carol, mixed, delivered: 40, at: 220)
        // Ten already stored (skipped by the unique index), then thirty new ones.
        try await commit(
            store, from: bob, Array(first.prefix(10)) + incomingRecords(stream: 5, seqs: 41...70),
            delivered: 70, at: 230)
        // Below `BatchBookkeeping.minimumRows`: the triggers.
        try await commit(
            store, from: bob, incomingRecords(stream: 5, seqs: 71...73), delivered: 73, at: 240)

        let sent = try await store.enqueue(
            to: bob, texts: (1...50).map { "out \($0)" }, at: 300, newStreamID: { 11 })
        _ = try await store.enqueue(
            to: carol, texts: ["a", "b", "c"], at: 310, newStreamID: { 12 })
        let stream = try #require(sent.first?.stream)
        #expect(try await store.recordDelivered(peer: bob, stream: stream, upTo: 20, at: 400) == 20)
        #expect(
            try await store.markDelivered(peer: bob, stream: stream, upTo: 35, at: 410).count == 15)
        #expect(
            try await store.markReadByPeer(peer: bob, stream: stream, upTo: 30, at: 420).count == 30
        )
        _ = try await store.applyResume(
            peer: bob, stream: stream, deliveredUpTo: 45, readUpTo: 40, at: 430)
    }

    private func commit(
        _ store: MessageStore, from peer: PeerKey, _ records: [IncomingRecord], delivered: UInt64,
        at now: Int64
    ) async throws {
        let stream = try #require(records.last?.message.stream)
        _ = try await store.commitIncoming(
            from: peer, records: records,
            cursor: IncomingCursor(stream: stream, delivered: delivered, read: 0), at: now)
    }

    /// Every row the bookkeeping writes, and the messages' own, as text.
    private func dump(_ store: MessageStore) async throws -> [String] {
        try await store.pool.read { db in
            var lines: [String] = []
            for sql in [
                "SELECT cursor, type, at, hex(pk), message, status, gid FROM events ORDER BY cursor",
                "SELECT hex(pk), last_message, updated_at, archived, unread FROM conversations ORDER BY pk",
                "SELECT hex(gid), last_message, updated_at, archived, unread FROM group_conversations ORDER BY gid",
                """
                SELECT rowid, hex(pk), direction, stream, seq, text, created_at, received_at,
                    read_at, status, fail_reason, delivered_at, hex(group_id)
                FROM messages ORDER BY rowid
                """,
            ] {
                lines += try Row.fetchAll(db, sql: sql).map(\.description)
            }
            return lines
        }
    }

    private func messageEvents(_ store: MessageStore) async throws -> Int {
        try await store.events(after: 0, limit: 1_000).filter { $0.message != nil }.count
    }

    private func batchRows(_ store: MessageStore) async throws -> Int? {
        try await store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM message_batch")
        }
    }
}
