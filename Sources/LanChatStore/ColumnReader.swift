import Foundation
import GRDB
internal import GRDBSQLite
import LanChatCore

/// Reads the current result row of a stepped statement straight from SQLite.
///
/// Why: GRDB's `Row` subscripts are generic functions that are not specialized across the
/// module boundary, so every column read looks up type metadata at run time. The outbox,
/// ACKs, history and the inbox decode thousands of rows a second; reading the columns with
/// SQLite's own accessors made decoding a message row about three times cheaper (profile in
/// docs/benchmarks.md). Only valid while the statement is on that row.
struct ColumnReader {
    let statement: SQLiteStatement

    var columnCount: Int { Int(sqlite3_column_count(statement)) }

    func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(statement, Int32(index)) == SQLITE_NULL
    }

    func int64(_ index: Int) -> Int64 { sqlite3_column_int64(statement, Int32(index)) }

    func optionalInt64(_ index: Int) -> Int64? { isNull(index) ? nil : int64(index) }

    func bool(_ index: Int) -> Bool { int64(index) != 0 }

    /// The bytes of a BLOB (or of a TEXT) column; empty for NULL.
    func bytes(_ index: Int) -> UnsafeRawBufferPointer {
        let column = Int32(index)
        // sqlite3_column_blob first, then _bytes: the documented order for a stable size.
        guard let start = sqlite3_column_blob(statement, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(
            start: start, count: Int(sqlite3_column_bytes(statement, column)))
    }

    func text(_ index: Int) -> String {
        let column = Int32(index)
        guard let start = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    func optionalText(_ index: Int) -> String? { isNull(index) ? nil : text(index) }

    /// Runs `statement` and calls `body` on each result row.
    static func forEachRow(
        _ statement: Statement, arguments: StatementArguments,
        _ body: (ColumnReader) throws -> Void
    ) throws {
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        let reader = ColumnReader(statement: statement.sqliteStatement)
        while try cursor.next() != nil { try body(reader) }
    }

    /// Runs `statement` and decodes each result row with `decode`.
    static func fetchAll<T>(
        _ statement: Statement, arguments: StatementArguments,
        _ decode: (ColumnReader) throws -> T
    ) throws -> [T] {
        var result: [T] = []
        try forEachRow(statement, arguments: arguments) { result.append(try decode($0)) }
        return result
    }
}

extension StoredMessage {
    /// Decodes `StoredMessage.columns` (or `columnsWithGroup`) selected from position `first`
    /// on.
    init(columns row: ColumnReader, from first: Int = 0) throws(StoreError) {
        guard let id = MessageID(bytes: row.bytes(first + 1)),
            let peer = PeerKey(bytes: row.bytes(first + 2)),
            let direction = StoredDirection(rawValue: row.int64(first + 3))
        else { throw StoreError(.corrupt, "a message row has an invalid id, peer or direction") }
        self.init(
            rowID: row.int64(first), id: id, peer: peer, direction: direction,
            stream: UInt64(stored: row.int64(first + 4)), seq: UInt64(stored: row.int64(first + 5)),
            text: row.text(first + 6), createdAt: row.int64(first + 7),
            receivedAt: row.optionalInt64(first + 8), readAt: row.optionalInt64(first + 9),
            status: row.optionalInt64(first + 10).flatMap(StoredStatus.init(rawValue:)),
            failReason: row.optionalText(first + 11), deliveredAt: row.optionalInt64(first + 12))
        if row.columnCount > first + 13, !row.isNull(first + 13) {
            group = GroupID(bytes: row.bytes(first + 13))
        }
    }

    /// The messages `sql` selects (`StoredMessage.columns`, in that order), through a cached
    /// statement.
    static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = [])
        throws -> [StoredMessage]
    {
        try ColumnReader.fetchAll(db.cachedStatement(sql: sql), arguments: arguments) {
            row throws in try StoredMessage(columns: row)
        }
    }
}
