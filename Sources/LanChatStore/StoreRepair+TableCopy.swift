import GRDB
internal import GRDBSQLite

/// One table of a damaged store copied into the new one (`StoreRepair`), row by row, as far
/// as it reads.
///
/// A damaged page can fail to read, or read as rows that were never written (random rowids
/// and values). So a table is read in key order from its first row up to the first error or
/// the first row out of order, and then in reverse from its last row down to the same kind of
/// stop or to the rows already copied: what lies on either side of a damaged part is kept, and
/// a page that reads as garbage is mostly told by its keys. Between two damaged parts, a rowid
/// table is sought at small steps, and a seek is only trusted when it lands inside the range
/// still missing (a first version trusted any: a seek into the damaged page answered a rowid
/// beyond the table's end, and everything after the damage was left out). What still gets
/// through is checked afterwards by the foreign keys (`StoreRepair`): a message must name a
/// known peer.
struct TableCopy {
    let table: String
    let columns: [String]
    /// The columns of the key that orders the table: `rowid` for a rowid table, the primary
    /// key's for a `WITHOUT ROWID` one.
    let key: [String]
    let hasRowID: Bool
    /// The rowid is copied as such (no column is its alias): events and conversations name
    /// messages by it.
    let copiesRowID: Bool

    struct Outcome {
        var copied = 0
        /// The table could not be read whole through its b-tree: what the passes missed may
        /// still be on its pages (`PageSalvage`).
        var damaged = false
        /// Rows read that the new store refused (a damaged value breaking a constraint).
        var refused = 0
    }

    init(table: String, in db: Database) throws {
        self.table = table
        let info = try Row.fetchAll(db, sql: "PRAGMA table_info(\(StoreRepair.quoted(table)))")
        columns = info.compactMap { $0["name"] }
        let sql =
            try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_schema WHERE name = ?", arguments: [table]) ?? ""
        hasRowID = !sql.uppercased().contains("WITHOUT ROWID")
        let keys = info.filter { ($0["pk"] as Int? ?? 0) > 0 }
            .sorted { ($0["pk"] as Int? ?? 0) < ($1["pk"] as Int? ?? 0) }
        let aliased = keys.count == 1 && (keys[0]["type"] as String?)?.uppercased() == "INTEGER"
        copiesRowID = hasRowID && !aliased
        key = hasRowID ? ["rowid"] : keys.compactMap { $0["name"] }
    }

    /// Copies what `source` can read of the table into `db` (inside its transaction). Rows the
    /// new store refuses (a damaged value breaking a constraint) are left out and counted.
    func run(from source: DatabaseQueue, into db: Database) throws -> Outcome {
        let selected = (hasRowID ? ["rowid"] : []) + columns.map(StoreRepair.quoted)
        let writer = RowWriter(table: table, columns: columns, copiesRowID: copiesRowID, in: db)
        var copied = 0
        var refused = 0
        // The new store's own failure (not the damaged one's): it ends the copy.
        var failure: (any Error)?
        /// Stores one row as read; false when the new store already has its key (the reverse
        /// pass met the forward one). A row breaking another constraint (a value a damaged
        /// page made NULL, say) is left out and the pass goes on.
        func store(_ row: Row) -> Bool {
            var values = Array(row.databaseValues)
            if hasRowID && !copiesRowID { values.removeFirst() }
            do {
                switch try writer.insert(values) {
                case .stored: copied += 1
                case .present: return false
                case .refused: refused += 1
                }
            } catch {
                failure = error
                return false
            }
            return true
        }
        let order = key.map { $0 == "rowid" ? $0 : StoreRepair.quoted($0) }
        let from = "SELECT \(selected.joined(separator: ", ")) FROM \(StoreRepair.quoted(table))"
        // Forward, from the first row. The last rowid comes from the rightmost pages alone, so
        // a damaged page in the middle that reads as rowids beyond it is told by them.
        let highest: Int64? =
            hasRowID
            ? (try? source.read { source in
                try Int64.fetchOne(
                    source, sql: "SELECT max(rowid) FROM \(StoreRepair.quoted(table))")
            }) ?? nil
            : nil
        let forward = pass(
            source, sql: from + " ORDER BY " + order.joined(separator: ", "), ascending: true,
            highest: highest, store: store)
        if forward.stopped {
            // Backward, from the last row, down to what the forward pass reached.
            let bound = hasRowID && forward.lastRowID != nil ? " WHERE rowid > ?" : ""
            let backward = pass(
                source,
                sql: from + bound + " ORDER BY "
                    + order.map { $0 + " DESC" }.joined(separator: ", "),
                arguments: bound.isEmpty ? [] : [forward.lastRowID], ascending: false,
                highest: nil, store: store)
            // Between two damaged parts: what reads in the rowids the two passes left.
            if hasRowID, backward.stopped,
                let below = backward.lastRowID ?? highest.map({ $0 + 1 })
            {
                fillGap(
                    after: max(forward.lastRowID ?? 0, 0), before: below, from: source,
                    select: from, store: store)
            }
        }
        if let failure { throw failure }
        return Outcome(copied: copied, damaged: forward.stopped, refused: refused)
    }

    /// Finds readable rows with rowids strictly between `low` and `high`, whose pages the
    /// passes from either end could not reach. Seeks at small steps through the range; a seek
    /// that fails, or answers a rowid outside it (a damaged page read as rows), moves on by a
    /// step; one that lands is read forward from there until it stops again.
    private func fillGap(
        after low: Int64, before high: Int64, from source: DatabaseQueue, select: String,
        store: (Row) -> Bool
    ) {
        guard low < high - 1 else { return }
        let step = max(1, (high - low) / 256)
        var next = low + 1
        var probes = 0
        while next < high, probes < 4_096 {
            probes += 1
            let landed = try? source.read { source in
                try Int64.fetchOne(
                    source,
                    sql: "SELECT rowid FROM \(StoreRepair.quoted(table)) WHERE rowid >= ? "
                        + "ORDER BY rowid LIMIT 1",
                    arguments: [next])
            }
            guard let start = landed, start >= next, start < high else {
                next += step
                continue
            }
            let scan = pass(
                source, sql: select + " WHERE rowid >= ? AND rowid < ? ORDER BY rowid",
                arguments: [start, high], ascending: true, highest: high - 1, store: store)
            guard scan.stopped else { return }
            next = (scan.lastRowID ?? start) + step
        }
    }

    private struct Pass {
        /// Stopped before the end: an error, or a row out of key order.
        var stopped = false
        var lastRowID: Int64?
    }

    /// Reads rows in one direction and stores them until the end, an error, a rowid out of
    /// order or past `highest` (a rowid table only: a damaged page read as rows), or a row
    /// already stored.
    private func pass(
        _ source: DatabaseQueue, sql: String, arguments: StatementArguments = [],
        ascending: Bool, highest: Int64?, store: (Row) -> Bool
    ) -> Pass {
        var result = Pass()
        do {
            try source.read { source in
                let rows = try Row.fetchCursor(source, sql: sql, arguments: arguments)
                while let row = try rows.next() {
                    if hasRowID {
                        let rowID: Int64 = row[0]
                        let outOfOrder =
                            result.lastRowID.map { ascending ? rowID <= $0 : rowID >= $0 } ?? false
                        if outOfOrder || highest.map({ rowID > $0 }) == true {
                            result.stopped = true
                            return
                        }
                        result.lastRowID = rowID
                    }
                    guard store(row) else { return }
                }
            }
        } catch {
            result.stopped = true
        }
        return result
    }
}
