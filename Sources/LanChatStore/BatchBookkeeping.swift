import GRDB

/// Writes a batch's event log entries and conversation rows with a few set-based statements
/// instead of the per-row triggers (schema v8).
///
/// Why: for each message the insert trigger runs two more statements (the event, the
/// conversation's upsert) and the status trigger one (the event). In a batch of 256 that is
/// 512 trigger statements where two set-based ones do the same: about 0.9 µs of the 5 µs a
/// received message costs in SQLite (docs/benchmarks.md, round 10). The result is the same
/// rows with the same values and, for the events, the same order.
///
/// How: the triggers stand aside while `message_batch` holds its row. `withoutTriggers`
/// inserts it, runs the caller's change of `messages` and its bookkeeping, and deletes the
/// row, all in the caller's transaction: no commit ever sees the row, so every other writer
/// (and every tool that opens the file) still gets the triggers.
enum BatchBookkeeping {
    /// Below this many rows the per-row triggers cost less than the extra statements (and a
    /// single `send`'s commit stays one page smaller).
    static let minimumRows = 32

    /// Runs `body`, which changes `messages` and writes the bookkeeping itself
    /// (`logInserted`, `changingStatus`), with the triggers standing aside. Must run inside a
    /// transaction; if `body` throws, the caller's transaction is rolled back, and the row
    /// with it.
    static func withoutTriggers<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "INSERT INTO message_batch (one) VALUES (1)").execute()
        let result = try body()
        try db.cachedStatement(sql: "DELETE FROM message_batch").execute()
        return result
    }

    /// The insert trigger's work for the rows from `firstRowID` on (schema v6's
    /// `messages_inserted`): an event per message in rowid order (none for a pending request's
    /// incoming message), and each 1:1 conversation moved to its last message, with its
    /// unread count raised by its new unread messages. `firstRowID` must be the first rowid
    /// the batch inserted: no row above it may be older.
    static func logInserted(_ db: Database, from firstRowID: Int64) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO events (type, at, pk, message, status)
                SELECT CASE direction WHEN 0 THEN 1 ELSE 2 END,
                    CASE direction WHEN 0 THEN coalesce(received_at, created_at)
                        ELSE created_at END,
                    pk, rowid, status
                FROM messages
                WHERE rowid >= ?1 AND (direction = 1 OR NOT EXISTS (
                    SELECT 1 FROM peers p WHERE p.pk = messages.pk AND p.request_since IS NOT NULL))
                ORDER BY rowid
                """
        ).execute(arguments: [firstRowID])
        // With max(), SQLite takes the other bare columns from the row that has the maximum:
        // the conversation's time is its last message's, as the trigger leaves it. NOT
        // INDEXED: for the GROUP BY, the planner would otherwise walk all of
        // `messages_by_conversation` instead of the batch's rowid range.
        try db.cachedStatement(
            sql: """
                INSERT INTO conversations (pk, last_message, updated_at, archived, unread)
                SELECT pk, max(rowid),
                    CASE direction WHEN 0 THEN coalesce(received_at, created_at)
                        ELSE created_at END,
                    0, sum(direction = 0 AND read_at IS NULL)
                FROM messages NOT INDEXED WHERE rowid >= ?1 AND group_id IS NULL GROUP BY pk
                ON CONFLICT (pk) DO UPDATE SET last_message = excluded.last_message,
                    updated_at = excluded.updated_at, archived = 0,
                    unread = conversations.unread + excluded.unread
                """
        ).execute(arguments: [firstRowID])
    }

    /// Runs `update`, an update of our messages selected by `rows` (its WHERE on `messages`,
    /// with `arguments`) to `status` at `at`, writing the status trigger's events (schema
    /// v3's `messages_status_changed`) with one statement before it: an event for each row it
    /// is about to change, in seq order, as the update visits them. Without `setBased` (a
    /// store of an older schema), the trigger writes them. `rows` must only select rows whose
    /// status the update changes.
    static func changingStatus<T>(
        _ db: Database, setBased: Bool, to status: StoredStatus, at: Int64, rows: String,
        arguments: StatementArguments, _ update: () throws -> T
    ) throws -> T {
        guard setBased else { return try update() }
        return try withoutTriggers(db) {
            try db.cachedStatement(
                sql: """
                    INSERT INTO events (type, at, pk, message, status)
                    SELECT 2, ?, pk, rowid, ? FROM messages WHERE \(rows) ORDER BY seq
                    """
            ).execute(arguments: [at, status.rawValue] + arguments)
            return try update()
        }
    }
}
