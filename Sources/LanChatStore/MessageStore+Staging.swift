import GRDB
import Glibc
import LanChatCore
import Synchronization

/// Received batches staged, then made messages (schema v9, issue 15).
///
/// Why: storing a received message as a row costs its insert, four index entries, an event
/// and the conversation's update, some 5 µs of SQLite per message and eight or more pages
/// per commit, and the peer's ACK waited for all of it. The receiver's writer was the whole
/// chain of a queued backlog's delivery (docs/benchmarks.md, round 9). Staged, a batch is one
/// row (`StagedRecords`) committed with its cursor, as durable as before (the same
/// transaction, `synchronous=FULL`), and the ACK goes out after that commit. Its messages are
/// written later, many batches in one transaction that also deletes the staged rows, so a
/// crash leaves every batch either staged or stored, exactly once; `open` stores what a crash
/// left staged.
///
/// What: a burst (a batch of `stagingMinimum` messages or more, and whatever follows while
/// some are staged); single messages are stored as before. When: the daemon's
/// `StagedBatchWriter` stores them once the peer's stream pauses (or a backlog grows).
/// Before then, every read that may concern messages (`read`, `settling`) and every write
/// (`write`) stores them first, so nobody sees the stage: a reply written while its question
/// is staged still comes after it.
extension MessageStore {
    /// At most this many staged batches (each ≤ 256 messages) per transaction.
    public static let stagedBatchesPerTransaction = 8

    /// A batch of at least this many messages is staged, not stored as messages at once.
    public static let stagingMinimum = 32

    /// Stores a received batch of in-order messages and the cursor that covers them **in one
    /// transaction**. Only once it has committed (`onCommit` runs, or this returns) may an
    /// ACK carrying `cursor.delivered` be sent. A batch with no message (all of it REJECTed
    /// or duplicate) saves the cursor alone.
    ///
    /// Staged when it is large (`stagingMinimum`) or others wait staged (their order must
    /// hold), else stored as messages at once: a conversation's single messages commit little
    /// either way, and storing them later would only take the writer from the next one.
    /// Never staged on a file system with less than `stagingRoom` free: rows take several
    /// times a staged batch's room, and a batch that was acknowledged must not then wait for
    /// space to be seen. There, what waits is stored first, in the same transaction, and a
    /// full disk refuses the batch (no ACK) as it always did.
    ///
    /// `onCommit` runs on the writer right after the commit (never after a rollback), before
    /// this returns to its caller's task: the daemon sends the ACK from there, one thread hop
    /// sooner. It must not block.
    public func storeReceived(
        from peer: PeerKey, records: [IncomingRecord], cursor: IncomingCursor, at now: Int64,
        onCommit: (@Sendable () -> Void)? = nil
    ) async throws(StoreError) {
        try Self.refuseNUL(in: records.map(\.text))
        let staging = staging
        let setBased = batchBookkeeping
        // Decided before the transaction: if another write changes the stage meanwhile,
        // either choice still keeps the order, since a write that does not stage stores
        // what waits first (`settling`), in its own transaction.
        let stages =
            (staging.count > 0 || records.count >= Self.stagingMinimum)
            && Self.hasRoomToStage(at: path)
        let committed: @Sendable (Int) -> Void = { staged in
            if staged > 0 { staging.add(staged) }
            onCommit?()
        }
        _ = try await write(
            "storing received messages", onCallersThread: true, settling: !stages,
            afterCommit: committed
        ) { db in
            if stages {
                try Self.stage(db, from: peer, records: records, at: now)
            } else if !records.isEmpty {
                _ = try Self.insertIncoming(
                    db, from: peer, records: records, receivedAt: now, setBased: setBased)
            }
            try Self.saveCursor(db, of: peer, cursor)
            return stages ? records.count : 0
        }
    }

    /// Free space below which nothing is staged (`storeReceived`).
    public static let stagingRoom: UInt64 = 64 << 20

    /// Whether the file system of `path` has `stagingRoom` free for unprivileged writers.
    static func hasRoomToStage(at path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) >= stagingRoom
    }

    private static func stage(
        _ db: Database, from peer: PeerKey, records: [IncomingRecord], at now: Int64
    ) throws {
        guard !records.isEmpty else { return }
        let encoded = StagedRecords.encode(records)
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO incoming_staged (pk, received_at, count, records)
                VALUES (?, ?, ?, ?)
                """)
        try ParameterBinder.bindingParameters(of: insert) { binder in
            binder.blob(peer.bytes)
            binder.int64(now)
            binder.int64(Int64(records.count))
            binder.blob(encoded)
        }
        try insert.execute()
    }

    /// How many received messages are staged.
    public var stagedMessages: Int { staging.count }

    /// Called (on the store's writer: it must only signal) after each commit that staged
    /// messages.
    public var onStaged: (@Sendable () -> Void)? {
        get { staging.handler }
        set { staging.handler = newValue }
    }

    /// Stores the oldest staged batches as messages, at most `stagedBatchesPerTransaction`
    /// of them in one transaction; returns how many messages left the stage (0: none was
    /// staged). The transaction commits with `synchronous=NORMAL`: the batches were durable
    /// already, and a crash that loses it leaves them staged.
    @discardableResult
    public func storeStaged() async throws(StoreError) -> Int {
        guard staging.count > 0 else { return 0 }
        let setBased = batchBookkeeping
        let stored = try await writeBookkeeping("storing received messages") { db in
            try Self.materializeStaged(
                db, batches: Self.stagedBatchesPerTransaction, setBased: setBased)
        }
        staging.remove(stored)
        return stored
    }

    /// Stores everything staged before a read. If the store cannot (a full disk), the read
    /// goes on without the staged messages: they are safe, and the next write stores them.
    func settleStaged() async {
        while staging.count > 0 {
            guard let stored = try? await storeStaged(), stored > 0 else { return }
        }
    }

    /// Inside a write transaction: the oldest `batches` staged batches become messages (with
    /// their events and conversations) and leave the stage. Returns their message count.
    static func materializeStaged(_ db: Database, batches: Int, setBased: Bool) throws -> Int {
        let select = try db.cachedStatement(
            sql: """
                SELECT batch, pk, received_at, count, records FROM incoming_staged
                ORDER BY batch LIMIT ?
                """)
        var staged: [(peer: PeerKey, receivedAt: Int64, count: Int, records: [UInt8])] = []
        var last: Int64?
        try ColumnReader.forEachRow(select, arguments: [min(batches, Int(Int32.max))]) { row in
            guard let peer = PeerKey(bytes: row.bytes(1)) else {
                throw StoreError(.corrupt, "a staged batch names no valid peer")
            }
            staged.append((peer, row.int64(2), Int(row.int64(3)), Array(row.bytes(4))))
            last = row.int64(0)
        }
        guard let last else { return 0 }
        var count = 0
        for batch in staged {
            let records = try StagedRecords.decode(batch.records)
            // The row's count, written with it, checks the blob decoded whole.
            guard records.count == batch.count else {
                throw StoreError(.corrupt, "a staged batch holds fewer messages than it says")
            }
            count += records.count
            _ = try insertIncoming(
                db, from: batch.peer, records: records, receivedAt: batch.receivedAt,
                setBased: setBased)
        }
        try db.cachedStatement(sql: "DELETE FROM incoming_staged WHERE batch <= ?")
            .execute(arguments: [last])
        return count
    }

    /// Stores every staged batch, in transactions of its own, on `pool`'s writer: what
    /// `open` (after a crash) and `close` do. Returns how many messages it stored.
    static func materializeAllStaged(_ pool: DatabasePool, setBased: Bool) throws -> Int {
        var total = 0
        while true {
            let stored = try pool.write { db in
                try materializeStaged(db, batches: stagedBatchesPerTransaction, setBased: setBased)
            }
            guard stored > 0 else { return total }
            total += stored
        }
    }
}

/// The number of staged messages, and the hook told when it grows. Changed only after the
/// commit that staged or stored them.
final class StagedCount: Sendable {
    private let value = Atomic<Int>(0)
    /// In a struct: a bare closure in a `Mutex` is re-wrapped on every read
    /// (`EventCommitObserver` tells the story).
    private let hook = Mutex<Hook?>(nil)

    private struct Hook: Sendable {
        let call: @Sendable () -> Void
    }

    var count: Int { value.load(ordering: .acquiring) }

    var handler: (@Sendable () -> Void)? {
        get { hook.withLock { $0 }?.call }
        set { hook.withLock { $0 = newValue.map(Hook.init) } }
    }

    func add(_ messages: Int) {
        value.add(messages, ordering: .releasing)
        handler?()
    }

    func remove(_ messages: Int) {
        guard messages > 0 else { return }
        value.subtract(messages, ordering: .releasing)
    }
}
