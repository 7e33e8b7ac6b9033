/// Rows of damaged tables read straight from the pages of a store file, as sqlite3's
/// `.recover` reads them (the system's SQLite, 3.40, has neither `sqlite3_recover` nor the
/// `sqlite_dbpage` table, so the file is read by hand: `StorePages`, `BTreePage`,
/// `SQLiteRecord`).
///
/// Why: SQLite reads a table only through its b-tree, from the root page down. One damaged
/// interior page (the root of `messages`, say) hides every row below it, though those rows
/// are intact on their leaf pages (QA: a zeroed root page lost all 22 302 messages).
///
/// Which table a leaf page's rows are of:
/// - a page reached from a table's root (through interior pages that still read) is that
///   table's;
/// - a table leaf page that no root reaches (a loose page: its parent was damaged) and that
///   is not on the freelist (its rows were deleted) goes to the table whose columns its rows
///   fit (`SalvageProfile`), when exactly one table fits best; a page that fits two equally
///   well is left out and counted.
///
/// A row is delivered only when its record decodes exactly and fits the table's columns: a
/// damaged page mostly reads as nothing, not as rows. What still gets through is checked
/// again by the new store's constraints (`RowWriter`). Pure: the pages come from `pages`, the
/// rows go to `deliver`.
struct PageSalvage {
    let pages: StorePages

    /// A row of `sqlite_schema`.
    struct SchemaEntry: Equatable {
        let type: String
        let name: String
        let rootPage: Int
        let sql: String

        var isRowIDTable: Bool {
            type == "table" && rootPage > 0 && !sql.uppercased().contains("WITHOUT ROWID")
        }
    }

    struct Row: Equatable {
        let rowid: Int64
        let values: [SalvagedValue]
    }

    struct Outcome: Equatable {
        /// Rows delivered, per table.
        var rows: [String: Int] = [:]
        /// Loose pages whose rows fit two tables equally well, left out.
        var ambiguousPages = 0
        /// Cells of the salvaged tables' pages that did not read as a row of the table.
        var unreadableCells = 0
    }

    /// `sqlite_schema`'s own columns (type, name, tbl_name, rootpage, sql).
    static let schemaProfile = SalvageProfile(
        table: "sqlite_schema",
        columns: [
            .init(
                name: "type", affinity: .text, notNull: false, hasDefault: false,
                isRowIDAlias: false),
            .init(
                name: "name", affinity: .text, notNull: false, hasDefault: false,
                isRowIDAlias: false),
            .init(
                name: "tbl_name", affinity: .text, notNull: false, hasDefault: false,
                isRowIDAlias: false),
            .init(
                name: "rootpage", affinity: .integer, notNull: false, hasDefault: false,
                isRowIDAlias: false),
            .init(
                name: "sql", affinity: .text, notNull: false, hasDefault: false, isRowIDAlias: false
            ),
        ])

    /// The rows of `sqlite_schema` that read, from the b-tree rooted at page 1.
    func schema() -> [SchemaEntry] {
        var claimed: Set<Int> = []
        return leaves(from: 1, claimed: &claimed).flatMap { page in
            rows(on: page).compactMap { row -> SchemaEntry? in
                guard row.values.count == 5, case .text(let type) = row.values[0],
                    case .text(let name) = row.values[1]
                else { return nil }
                var root = 0
                if case .integer(let number) = row.values[3] { root = Int(number) }
                var sql = ""
                if case .text(let text) = row.values[4] {
                    sql = String(decoding: text, as: UTF8.self)
                }
                return SchemaEntry(
                    type: String(decoding: type, as: UTF8.self),
                    name: String(decoding: name, as: UTF8.self), rootPage: root, sql: sql)
            }
        }
    }

    /// Delivers the rows of the tables named in `targets` that the file's pages still hold:
    /// those on the leaves their roots reach, then those on loose leaves that fit them.
    /// `profiles` are every rowid table's, so that a loose page of another table is told
    /// apart (and left out). Rows come table by table, each table's roughly in rowid order;
    /// a rowid may come twice (a stale copy), which the writer refuses.
    func salvage(
        _ targets: [String], profiles: [SalvageProfile],
        deliver: (_ table: String, Row) throws -> Void
    ) rethrows -> Outcome {
        var outcome = Outcome()
        guard pages.header.textEncoding == 1 else { return outcome }
        let byName = Dictionary(profiles.map { ($0.table, $0) }) { first, _ in first }
        // Every page a root reaches, interior or leaf, is claimed by its table: only the
        // leaves none reaches are loose.
        var claimed: Set<Int> = []
        var leavesOf: [String: [Int]] = [:]
        leavesOf["sqlite_schema"] = leaves(from: 1, claimed: &claimed)
        for entry in schema() where entry.isRowIDTable {
            leavesOf[entry.name, default: []] += leaves(from: entry.rootPage, claimed: &claimed)
        }
        claimed.formUnion(freelist())
        for table in targets {
            guard let profile = byName[table] else { continue }
            for page in leavesOf[table] ?? [] {
                try deliverRows(on: page, as: profile, into: &outcome, deliver)
            }
        }
        let wanted = Set(targets)
        for number in 2...max(2, pages.count) where !claimed.contains(number) {
            guard let bytes = pages.page(number),
                BTreePage.kind(of: bytes, page: number) == .tableLeaf
            else { continue }
            let found = rows(on: number)
            var best: [SalvageProfile] = []
            var bestFit = 0
            for profile in byName.values {
                let fit = found.count { profile.admits($0.values) }
                if fit > bestFit {
                    (best, bestFit) = ([profile], fit)
                } else if fit == bestFit, fit > 0 {
                    best.append(profile)
                }
            }
            guard best.contains(where: { wanted.contains($0.table) }) else { continue }
            guard best.count == 1, let owner = best.first else {
                outcome.ambiguousPages += 1
                continue
            }
            try deliverRows(on: number, as: owner, into: &outcome, deliver)
        }
        return outcome
    }

    private func deliverRows(
        on page: Int, as profile: SalvageProfile, into outcome: inout Outcome,
        _ deliver: (String, Row) throws -> Void
    ) rethrows {
        let (found, cells) = leafRows(on: page)
        var fitting = 0
        for row in found where profile.admits(row.values) {
            try deliver(profile.table, row)
            fitting += 1
        }
        outcome.rows[profile.table, default: 0] += fitting
        outcome.unreadableCells += cells - fitting
    }

    /// The table leaves below `root`, left to right; every page reached (interior too) goes
    /// into `claimed`, and a page claimed already is not entered again (a damaged child
    /// pointer naming another table's page, or a loop).
    func leaves(from root: Int, claimed: inout Set<Int>) -> [Int] {
        var found: [Int] = []
        var stack = [root]
        while let number = stack.popLast() {
            guard !claimed.contains(number), let bytes = pages.page(number),
                let page = BTreePage(number: number, bytes: bytes, usableSize: pages.usableSize)
            else { continue }
            switch page.kind {
            case .tableLeaf:
                claimed.insert(number)
                found.append(number)
            case .tableInterior:
                claimed.insert(number)
                stack += page.tableChildren(pageCount: pages.count).reversed()
            case .indexLeaf, .indexInterior:
                continue
            }
        }
        return found
    }

    /// The pages on the freelist, trunks and leaves: what they hold was deleted.
    func freelist() -> Set<Int> {
        var free: Set<Int> = []
        var trunk = pages.header.firstFreelistTrunk
        while trunk >= 2, trunk <= pages.count, free.insert(trunk).inserted,
            let bytes = pages.page(trunk)
        {
            let listed = min(SQLiteBytes.u32(bytes, at: 4) ?? 0, (pages.usableSize - 8) / 4)
            for index in 0..<listed {
                if let leaf = SQLiteBytes.u32(bytes, at: 8 + 4 * index) { free.insert(leaf) }
            }
            trunk = SQLiteBytes.u32(bytes, at: 0) ?? 0
        }
        return free
    }

    /// The rows on table leaf `page` whose records decode, overflow pages and all.
    func rows(on page: Int) -> [Row] { leafRows(on: page).rows }

    /// `rows(on:)`, and how many cells the page says it has.
    private func leafRows(on page: Int) -> (rows: [Row], cells: Int) {
        guard let bytes = pages.page(page),
            let leaf = BTreePage(number: page, bytes: bytes, usableSize: pages.usableSize),
            leaf.kind == .tableLeaf
        else { return ([], 0) }
        let found = leaf.cellOffsets.compactMap { offset -> Row? in
            guard let cell = leaf.tableLeafCell(at: offset), let payload = payload(of: cell),
                let values = SQLiteRecord.decode(payload)
            else { return nil }
            return Row(rowid: cell.rowid, values: values)
        }
        return (found, leaf.cellOffsets.count + leaf.droppedCells)
    }

    /// A cell's whole payload: its page's part, then the overflow chain's (each overflow
    /// page: the next one's number, then content); nil when the chain breaks.
    func payload(of cell: BTreePage.TableLeafCell) -> [UInt8]? {
        // A damaged size no file of this many pages could hold is not followed.
        guard cell.payloadSize <= pages.count * pages.usableSize else { return nil }
        var payload = cell.localPayload
        var next = cell.firstOverflowPage ?? 0
        var visited: Set<Int> = []
        while payload.count < cell.payloadSize {
            guard next >= 2, visited.insert(next).inserted, let bytes = pages.page(next),
                let following = SQLiteBytes.u32(bytes, at: 0)
            else { return nil }
            let take = min(cell.payloadSize - payload.count, pages.usableSize - 4)
            payload += bytes[4..<4 + take]
            next = following
        }
        return payload
    }
}
