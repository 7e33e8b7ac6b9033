import GRDB

/// The search index is built after the write (`Schema.v5`): messages commit without their
/// FTS5 entry, and these methods add the entries of everything stored since, in large
/// batches. One batch of thousands costs far less than thousands of one-message index
/// flushes, and none of it is on the path of a message to its peer.
extension MessageStore {
    /// The most messages indexed in one transaction: the writer is held for tens of
    /// milliseconds at most, so a send waiting behind it is not held longer.
    public static let searchIndexBatch = 5_000

    /// Adds the next stored messages (at most `limit`) to the search index; returns how many
    /// it added (0: the index is complete). Committed with `synchronous=NORMAL`: the index
    /// is derived from `messages`, and a crash that loses this commit loses the boundary
    /// with it, so the same messages are indexed again, never twice.
    @discardableResult
    public func indexPendingMessages(limit: Int = searchIndexBatch) async throws(StoreError)
        -> Int
    {
        try await writeBookkeeping("indexing messages for search") { db in
            try Self.indexPending(db, limit: limit)
        }
    }

    /// Indexes everything stored so far, staged batches included (they are stored first);
    /// returns how many messages that was.
    @discardableResult
    public func completeSearchIndex() async throws(StoreError) -> Int {
        await settleStaged()
        var total = 0
        while true {
            let added = try await indexPendingMessages()
            total += added
            if added == 0 { return total }
        }
    }

    /// Messages stored but not yet in the search index.
    public func messagesAwaitingIndex() async throws(StoreError) -> Int {
        try await read("counting messages to index") { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM messages
                    WHERE rowid > (SELECT indexed_through FROM search_progress)
                    """) ?? 0
        }
    }

    static func indexPending(_ db: Database, limit: Int) throws -> Int {
        guard
            let through = try Int64.fetchOne(db, sql: "SELECT indexed_through FROM search_progress")
        else { throw StoreError(.corrupt, "the search index has no progress row") }
        guard
            let batch = try Row.fetchOne(
                db,
                sql: """
                    SELECT max(rowid), count(*) FROM (
                        SELECT rowid FROM messages WHERE rowid > ? ORDER BY rowid LIMIT ?)
                    """,
                arguments: [through, limit]),
            let last = batch[0] as Int64?
        else { return 0 }
        // One statement: FTS5 flushes its pending entries once, as one segment.
        try db.execute(
            sql: """
                INSERT INTO messages_fts (rowid, text)
                SELECT rowid, text FROM messages WHERE rowid > ? AND rowid <= ? ORDER BY rowid
                """,
            arguments: [through, last])
        // The same rows' CJK and emoji messages, in the CJK index (`Schema.v14`, `v15`). A
        // test per message, where most stop at its first part (nothing but ASCII), so English
        // text costs nearly nothing more; a store of an older schema (a test's) has no such
        // table.
        if try hasCJKIndex(db) {
            try db.execute(
                sql: """
                    INSERT INTO messages_fts_cjk (rowid, text)
                    SELECT rowid, text FROM messages WHERE rowid > ? AND rowid <= ?
                        AND \(Schema.holdsCJK("text"))
                    ORDER BY rowid
                    """,
                arguments: [through, last])
        }
        try db.execute(
            sql: "UPDATE search_progress SET indexed_through = ?", arguments: [last])
        let added: Int = batch[1]
        return added
    }

    /// Whether the schema has `messages_fts_cjk` (v14).
    static func hasCJKIndex(_ db: Database) throws -> Bool {
        // One cached lookup in the main schema (every search asks): `tableExists` lists the
        // attached schemas first.
        try Row.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages_fts_cjk'"
            )) != nil
    }
}
