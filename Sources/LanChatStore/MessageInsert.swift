import Foundation
import GRDB
import LanChatCore
import Synchronization

/// Inserts a batch of messages in a few multi-row statements instead of one per message.
///
/// Why: each statement has a fixed cost: its savepoint, its trigger program's setup, and,
/// with `Schema.v3`'s and `v4`'s triggers (a store opened at those versions, as the
/// migration tests do), an FTS5 index flush; one statement per message made storing ~5 times
/// slower. A batch is cut into
/// power-of-two chunks (at most 256 rows each), so at most 9 statement shapes are ever
/// prepared and cached.
enum MessageInsert {
    static let maxRowsPerStatement = 256

    /// Inserts `count` rows: `INSERT INTO messages (columns) VALUES row, row… suffix`, where
    /// `row` has a `?` per value `bind(index, &binder)` binds, and returns each row's rowid by
    /// its index, nil for a row a conflict clause in `suffix` skipped. Values are bound with
    /// SQLite's own functions (`ParameterBinder`), not through GRDB's arguments: a batch has
    /// thousands.
    ///
    /// No `RETURNING`: SQLite inserts a statement's VALUES rows in order, each with a rowid
    /// one above the table's largest (no trigger inserts into `messages`), so a statement that
    /// inserted every row gave them the consecutive rowids ending at `lastInsertedRowID`.
    /// Only when a conflict clause skipped some are the inserted rows read back, by `id`.
    ///
    /// With `setBased` and at least `BatchBookkeeping.minimumRows` rows, the event log and the
    /// conversations are written once for the batch instead of by the trigger for each row.
    static func insert(
        _ db: Database, count: Int, columns: String, row: String, suffix: String = "",
        setBased: Bool, id: (Int) -> MessageID, bind: (Int, inout ParameterBinder) -> Void
    ) throws -> [Int64?] {
        guard setBased, count >= BatchBookkeeping.minimumRows else {
            return try insertRows(
                db, count: count, columns: columns, row: row, suffix: suffix, id: id, bind: bind)
        }
        return try BatchBookkeeping.withoutTriggers(db) {
            let rowIDs = try insertRows(
                db, count: count, columns: columns, row: row, suffix: suffix, id: id, bind: bind)
            // The inserted rowids ascend; every row above the first is this batch's.
            if let first = rowIDs.lazy.compactMap({ $0 }).first {
                try BatchBookkeeping.logInserted(db, from: first)
            }
            return rowIDs
        }
    }

    private static func insertRows(
        _ db: Database, count: Int, columns: String, row: String, suffix: String,
        id: (Int) -> MessageID, bind: (Int, inout ParameterBinder) -> Void
    ) throws -> [Int64?] {
        var rowIDs = [Int64?](repeating: nil, count: count)
        var start = 0
        while start < count {
            var size = maxRowsPerStatement
            while size > count - start { size /= 2 }
            let statement = try db.cachedStatement(
                sql: sql(columns: columns, row: row, suffix: suffix, rows: size))
            try ParameterBinder.bindingParameters(of: statement) { binder in
                for index in start..<(start + size) { bind(index, &binder) }
            }
            try statement.execute()
            let changes = db.changesCount
            let last = db.lastInsertedRowID
            if changes == size {
                for offset in 0..<size {
                    rowIDs[start + offset] = last - Int64(size - 1 - offset)
                }
            } else if changes > 0 {
                try readBack(db, after: last - Int64(changes), into: &rowIDs, from: start, size, id)
            }
            start += size
        }
        return rowIDs
    }

    /// The rows of one statement that a conflict clause thinned: the inserted ones are the
    /// rowids above `after`; each goes to the first row of the statement with its id (a
    /// batch that repeats an id stored it once).
    private static func readBack(
        _ db: Database, after: Int64, into rowIDs: inout [Int64?], from start: Int, _ size: Int,
        _ id: (Int) -> MessageID
    ) throws {
        var inserted: [MessageID: Int64] = [:]
        let statement = try db.cachedStatement(
            sql: "SELECT rowid, uuid FROM messages WHERE rowid > ? ORDER BY rowid")
        try ColumnReader.forEachRow(statement, arguments: [after]) { row in
            if let found = MessageID(bytes: row.bytes(1)) { inserted[found] = row.int64(0) }
        }
        for index in start..<(start + size) {
            rowIDs[index] = inserted.removeValue(forKey: id(index))
        }
    }

    /// The statement's text, built once per shape: the cache is looked up by it, and a
    /// 256-row text is some 6 KB to join and hash on every batch otherwise.
    private static func sql(columns: String, row: String, suffix: String, rows: Int) -> String {
        let key = SQLKey(columns: columns, row: row, suffix: suffix, rows: rows)
        if let known = texts.withLock({ $0[key] }) { return known }
        let text =
            "INSERT INTO messages (\(columns)) VALUES "
            + repeatElement(row, count: rows).joined(separator: ", ") + " \(suffix)"
        texts.withLock { $0[key] = text }
        return text
    }

    private struct SQLKey: Hashable {
        let columns: String
        let row: String
        let suffix: String
        let rows: Int
    }

    /// A handful of shapes (two column sets, nine sizes); shared by every store.
    private static let texts = Mutex<[SQLKey: String]>([:])
}
