import GRDB

/// What the rows of one rowid table look like, for telling which table the rows of a loose
/// page belong to (`PageSalvage`), and for writing them back (`RowWriter`).
///
/// Taken from the new store's schema, which the same migrations built: its tables have the
/// damaged store's columns, in the same order, whatever happened to the damaged file's own
/// schema.
struct SalvageProfile: Equatable {
    /// How SQLite stores a column's values
    /// (https://www.sqlite.org/datatype3.html#determination_of_column_affinity).
    enum Affinity: Equatable {
        case integer, text, blob, real, numeric

        init(declaredType: String) {
            let type = declaredType.uppercased()
            if type.contains("INT") {
                self = .integer
            } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
                self = .text
            } else if type.contains("BLOB") || type.isEmpty {
                self = .blob
            } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
                self = .real
            } else {
                self = .numeric
            }
        }

        /// Whether a column of this affinity can hold `value` as lanchat writes it: numbers
        /// in number columns (it never binds text to one), text in text columns (SQLite
        /// turns a number bound to one into text), anything in the others.
        func admits(_ value: SalvagedValue) -> Bool {
            switch (self, value) {
            case (_, .null), (.blob, _), (.numeric, _): true
            case (.integer, .integer), (.integer, .real), (.real, .integer), (.real, .real): true
            case (.text, .text), (.text, .blob): true
            default: false
            }
        }
    }

    struct Column: Equatable {
        let name: String
        let affinity: Affinity
        let notNull: Bool
        let hasDefault: Bool
        /// The INTEGER PRIMARY KEY: the record holds NULL for it, the value is the rowid.
        let isRowIDAlias: Bool
    }

    let table: String
    let columns: [Column]

    /// Whether no column names the rowid, so it is written as such.
    var copiesRowID: Bool { !columns.contains(where: \.isRowIDAlias) }

    /// Whether `values` can be a row of the table: some values but no more than the columns
    /// (a row written before an `ALTER TABLE ADD COLUMN` has fewer: SQLite gives the rest
    /// their defaults, so each missing column must have one or allow NULL), each of a kind
    /// its column holds, NULL only where allowed, and always for the rowid's alias.
    func admits(_ values: [SalvagedValue]) -> Bool {
        guard !values.isEmpty, values.count <= columns.count else { return false }
        for (column, value) in zip(columns, values) {
            if column.isRowIDAlias {
                guard value == .null else { return false }
            } else if value == .null {
                guard !column.notNull else { return false }
            } else if !column.affinity.admits(value) {
                return false
            }
        }
        return columns[values.count...].allSatisfy { $0.hasDefault || !$0.notNull }
    }

    /// The profile of `table`, a rowid table of `db`; nil for a `WITHOUT ROWID` or virtual
    /// table, or one that does not exist.
    static func read(_ table: String, in db: Database) throws -> SalvageProfile? {
        guard
            let entry = try Row.fetchOne(
                db,
                sql: "SELECT rootpage, sql FROM sqlite_schema WHERE type = 'table' AND name = ?",
                arguments: [table]),
            (entry["rootpage"] as Int? ?? 0) > 0,
            !(entry["sql"] as String? ?? "").uppercased().contains("WITHOUT ROWID")
        else { return nil }
        let info = try Row.fetchAll(db, sql: "PRAGMA table_info(\(StoreRepair.quoted(table)))")
        let keys = info.filter { ($0["pk"] as Int? ?? 0) > 0 }
        let aliased = keys.count == 1 && (keys[0]["type"] as String?)?.uppercased() == "INTEGER"
        return SalvageProfile(
            table: table,
            columns: info.map { column in
                Column(
                    name: column["name"] ?? "",
                    affinity: Affinity(declaredType: column["type"] ?? ""),
                    notNull: (column["notnull"] as Int? ?? 0) != 0,
                    hasDefault: !((column["dflt_value"] as DatabaseValue?)?.isNull ?? true),
                    isRowIDAlias: aliased && (column["pk"] as Int? ?? 0) == 1)
            })
    }
}
