import Foundation
import GRDB

extension StoreRepair {
    /// What the page salvage added to the new store.
    struct Salvage {
        /// Rows stored, per table: found on its pages and not copied already.
        var stored: [String: Int] = [:]
        /// Rows found that the new store refused (a constraint), per table.
        var refused: [String: Int] = [:]
        /// Said in the report, when not every page could be used.
        var notes: [String] = []
    }

    /// Reads the rows of `tables` (rowid tables the copy could not read whole) from the pages
    /// of the damaged file at `path` (`PageSalvage`) and writes them into `db`, the new store,
    /// with their rowids, as the copy writes its rows (`RowWriter`): a row the copy kept
    /// already is not written again.
    static func salvage(_ tables: [String], from path: String, into db: Database) throws
        -> Salvage
    {
        var result = Salvage()
        guard let pages = StorePages.open(path) else {
            result.notes.append("the damaged file's pages could not be read to look for more rows")
            return result
        }
        guard pages.header.textEncoding == 1 else {
            result.notes.append("the damaged file is not UTF-8: its pages were not read")
            return result
        }
        let names = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0")
        let profiles =
            try names.compactMap { try SalvageProfile.read($0, in: db) }
            + [PageSalvage.schemaProfile]
        let byName = Dictionary(profiles.map { ($0.table, $0) }) { first, _ in first }
        var writers: [String: RowWriter] = [:]
        let outcome = try PageSalvage(pages: pages).salvage(tables, profiles: profiles) {
            table, row in
            guard let profile = byName[table] else { return }
            let writer =
                writers[table]
                ?? RowWriter(
                    table: table, columns: profile.columns.map(\.name),
                    copiesRowID: profile.copiesRowID, in: db)
            writers[table] = writer
            switch try writer.insert(databaseValues(of: row, as: profile)) {
            case .stored: result.stored[table, default: 0] += 1
            case .refused: result.refused[table, default: 0] += 1
            case .present: break
            }
        }
        if outcome.ambiguousPages > 0 {
            result.notes.append(
                "\(outcome.ambiguousPages) loose page\(outcome.ambiguousPages == 1 ? "" : "s") "
                    + "left out: \(outcome.ambiguousPages == 1 ? "its" : "their") rows fit "
                    + "more than one table")
        }
        return result
    }

    /// A salvaged row as the writer takes it: the rowid first when it is copied as such, and
    /// in the column that is its alias (the record holds NULL there).
    static func databaseValues(of row: PageSalvage.Row, as profile: SalvageProfile)
        -> [DatabaseValue]
    {
        var values = zip(profile.columns, row.values).map { column, value -> DatabaseValue in
            if column.isRowIDAlias { return row.rowid.databaseValue }
            switch value {
            case .null: return .null
            case .integer(let number): return number.databaseValue
            case .real(let number): return number.databaseValue
            case .text(let bytes): return String(decoding: bytes, as: UTF8.self).databaseValue
            case .blob(let bytes): return Data(bytes).databaseValue
            }
        }
        if profile.copiesRowID { values.insert(row.rowid.databaseValue, at: 0) }
        return values
    }
}
