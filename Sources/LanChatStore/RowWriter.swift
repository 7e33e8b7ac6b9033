import GRDB
internal import GRDBSQLite

/// Writes rows into one table of the new store (`StoreRepair`): the rows the copy read
/// through SQLite (`TableCopy`) and those read from loose pages (`PageSalvage`) take the same
/// path, so both keep their rowids and meet the same constraints.
final class RowWriter {
    enum Result {
        case stored
        /// The new store has a row of this key already (the two passes of the copy met, or
        /// the salvage found a row the copy had): not stored twice.
        case present
        /// A constraint refused it (a value a damaged page made NULL, say).
        case refused
    }

    private let db: Database
    private let table: String
    /// `rowid` first when it is copied as such, then the table's columns.
    private let names: [String]
    /// One statement per count of values: a row read from a page may have fewer values than
    /// the table has columns (written before a column was added), the rest take their
    /// defaults.
    private var statements: [Int: Statement] = [:]

    init(table: String, columns: [String], copiesRowID: Bool, in db: Database) {
        self.db = db
        self.table = table
        names = (copiesRowID ? ["rowid"] : []) + columns.map(StoreRepair.quoted)
    }

    /// Inserts `values`: the rowid first when it is copied as such, then the first columns'.
    func insert(_ values: [DatabaseValue]) throws -> Result {
        guard values.count <= names.count else { return .refused }
        let insert = try statement(for: values.count)
        do {
            try insert.execute(arguments: StatementArguments(values))
            return .stored
        } catch let error as DatabaseError
            where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
            || error.extendedResultCode == .SQLITE_CONSTRAINT_ROWID
        {
            sqlite3_reset(insert.sqliteStatement)
            return .present
        } catch {
            // SQLite's reset answers the failed step's error once: taken here, not by the
            // next row's insert.
            sqlite3_reset(insert.sqliteStatement)
            return .refused
        }
    }

    private func statement(for count: Int) throws -> Statement {
        if let statement = statements[count] { return statement }
        let columns = names.prefix(count)
        let statement = try db.makeStatement(
            sql: "INSERT INTO \(StoreRepair.quoted(table)) (\(columns.joined(separator: ", "))) "
                + "VALUES (\(Array(repeating: "?", count: count).joined(separator: ", ")))")
        statements[count] = statement
        return statement
    }
}
