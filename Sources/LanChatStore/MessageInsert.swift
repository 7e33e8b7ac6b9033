import Foundation
import GRDB

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
    /// RETURNING rowid, uuid`, where `row` has a `?` per value `arguments(index)` gives.
    /// Returns the rowid of each uuid actually inserted (a conflict clause in `suffix` may
    /// skip some).
    static func insert(
        _ db: Database, count: Int, columns: String, row: String, suffix: String = "",
        arguments: (Int) -> [(any DatabaseValueConvertible)?]
    ) throws -> [Data: Int64] {
        var inserted: [Data: Int64] = [:]
        inserted.reserveCapacity(count)
        var start = 0
        while start < count {
            var size = maxRowsPerStatement
            while size > count - start { size /= 2 }
            let statement = try db.cachedStatement(
                sql: "INSERT INTO messages (\(columns)) VALUES "
                    + repeatElement(row, count: size).joined(separator: ", ")
                    + " \(suffix) RETURNING rowid, uuid")
            var values: [(any DatabaseValueConvertible)?] = []
            for index in start..<(start + size) { values += arguments(index) }
            try ColumnReader.forEachRow(statement, arguments: StatementArguments(values)) { row in
                inserted[Data(row.bytes(1))] = row.int64(0)
            }
            start += size
        }
        return inserted
    }
}
