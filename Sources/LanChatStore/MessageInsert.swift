import Foundation
import GRDB
import LanChatCore
import Synchronization

/// Inserts a batch of messages in a few multi-row statements instead of one per message.
///
/// Why: `Schema.v3`'s trigger indexes every new message in the FTS5 table, and FTS5 writes
/// its pending index data to disk at the end of every statement that changed it (each
/// statement is a savepoint). One statement per message made storing one ~5 times
/// slower; one per batch costs about one index flush per batch. A batch is cut into
/// power-of-two chunks (at most 256 rows each), so at most 9 statement shapes are ever
/// prepared and cached.
enum MessageInsert {
    static let maxRowsPerStatement = 256

    /// Inserts `count` rows: `INSERT INTO messages (columns) VALUES row, row… suffix
    /// RETURNING rowid, uuid`, where `row` has a `?` per value `bind(index, &binder)` binds.
    /// Returns the rowid of each id actually inserted (a conflict clause in `suffix` may skip
    /// some). Values are bound with SQLite's own functions (`ParameterBinder`), not through
    /// GRDB's arguments: a batch has thousands.
    static func insert(
        _ db: Database, count: Int, columns: String, row: String, suffix: String = "",
        bind: (Int, inout ParameterBinder) -> Void
    ) throws -> [MessageID: Int64] {
        var inserted: [MessageID: Int64] = [:]
        inserted.reserveCapacity(count)
        var start = 0
        while start < count {
            var size = maxRowsPerStatement
            while size > count - start { size /= 2 }
            let statement = try db.cachedStatement(
                sql: sql(columns: columns, row: row, suffix: suffix, rows: size))
            try ParameterBinder.bindingParameters(of: statement) { binder in
                for index in start..<(start + size) { bind(index, &binder) }
            }
            try ColumnReader.forEachRow(statement) { row in
                guard let id = MessageID(bytes: row.bytes(1)) else { return }
                inserted[id] = row.int64(0)
            }
            start += size
        }
        return inserted
    }

    /// The statement's text, built once per shape: the cache is looked up by it, and a
    /// 256-row text is some 6 KB to join and hash on every batch otherwise.
    private static func sql(columns: String, row: String, suffix: String, rows: Int) -> String {
        let key = SQLKey(columns: columns, row: row, suffix: suffix, rows: rows)
        if let known = texts.withLock({ $0[key] }) { return known }
        let text =
            "INSERT INTO messages (\(columns)) VALUES "
            + repeatElement(row, count: rows).joined(separator: ", ")
            + " \(suffix) RETURNING rowid, uuid"
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
