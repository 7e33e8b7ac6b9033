import GRDB
internal import GRDBSQLite

/// Binds a cached statement's parameters straight with SQLite's own functions, in order.
///
/// Why: a batch insert of 256 messages has 1 500 – 2 000 parameters. Through GRDB each one
/// is boxed as an existential, converted to a `DatabaseValue`, validated and bound, and each
/// blob is first copied into a `Data`; in the throughput profile that was as much CPU as the
/// inserts' own SQL. The reading side's twin is `ColumnReader`.
///
/// Use it through `bindingParameters(of:_:)`, which leaves the statement in the state GRDB
/// expects for running it with no new arguments (so its transaction observers still see the
/// statement's changes).
struct ParameterBinder {
    private let statement: SQLiteStatement
    private var next: Int32 = 1
    /// The first failed bind (SQLite's result code); SQLite leaves that parameter NULL.
    private(set) var failure: Int32?

    fileprivate init(statement: SQLiteStatement) { self.statement = statement }

    mutating func int64(_ value: Int64) {
        record(sqlite3_bind_int64(statement, next, value))
    }

    /// SQLite copies the bytes (`SQLITE_TRANSIENT`): they need not outlive the call.
    mutating func blob(_ bytes: [UInt8]) {
        let code = bytes.withUnsafeBytes { buffer in
            // A zero-length blob needs a non-nil pointer, or SQLite binds NULL.
            sqlite3_bind_blob(
                statement, next, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                Int32(buffer.count), Self.transient)
        }
        record(code)
    }

    mutating func optionalBlob(_ bytes: [UInt8]?) {
        guard let bytes else {
            record(sqlite3_bind_null(statement, next))
            return
        }
        blob(bytes)
    }

    /// Bound as UTF-8 of its exact length (an embedded NUL is refused before any write).
    mutating func text(_ value: String) {
        record(sqlite3_bind_text(statement, next, value, Int32(value.utf8.count), Self.transient))
    }

    private mutating func record(_ code: Int32) {
        if code != SQLITE_OK, failure == nil { failure = code }
        next += 1
    }

    /// `SQLITE_TRANSIENT`: SQLite makes its own copy before the bind returns.
    private static let transient = unsafeBitCast(
        OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

extension ParameterBinder {
    /// Clears `statement`'s bindings and binds them anew with `bind`, leaving it ready to run
    /// through GRDB with no arguments (`Row.fetchCursor(statement)`, `statement.execute()`).
    /// Throws the first bind that failed (a value too big for SQLite), naming the SQL.
    static func bindingParameters(
        of statement: Statement, _ bind: (inout ParameterBinder) -> Void
    ) throws {
        // An earlier failed step makes the next `sqlite3_reset` return that failure; GRDB's
        // `setUncheckedArguments` resets without expecting one. After this reset, the next
        // one returns SQLITE_OK (no step since).
        sqlite3_reset(statement.sqliteStatement)
        // Marks GRDB's own arguments as bound (so running the statement only resets it) and
        // clears SQLite's bindings.
        statement.setUncheckedArguments(StatementArguments())
        var binder = ParameterBinder(statement: statement.sqliteStatement)
        bind(&binder)
        if let failure = binder.failure {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: failure), message: "binding a parameter failed",
                sql: statement.sql)
        }
        guard binder.next - 1 == sqlite3_bind_parameter_count(statement.sqliteStatement) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "bound \(binder.next - 1) parameters of "
                    + "\(sqlite3_bind_parameter_count(statement.sqliteStatement))",
                sql: statement.sql)
        }
    }
}
