import Foundation
import GRDB
import Testing

@testable import LanChatStore

/// Which table a page's rows go to (`PageSalvage`), on hand-made files of 512-byte pages,
/// and the `-wal` laid over the main file (`StorePages`, `WALIndex`) with real SQLite.
@Suite("Store repair: page salvage")
struct StoreRepairPageSalvageTests {
    typealias Build = TestPageBuilder
    static let size = 512

    static func column(
        _ name: String, _ affinity: SalvageProfile.Affinity, notNull: Bool = false,
        alias: Bool = false
    ) -> SalvageProfile.Column {
        .init(
            name: name, affinity: affinity, notNull: notNull, hasDefault: false, isRowIDAlias: alias
        )
    }

    /// `notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, at INTEGER)`.
    static let notes = SalvageProfile(
        table: "notes",
        columns: [
            column("id", .integer, alias: true), column("body", .text, notNull: true),
            column("at", .integer),
        ])
    /// `tags (name TEXT NOT NULL, weight INTEGER)`.
    static let tags = SalvageProfile(
        table: "tags", columns: [column("name", .text, notNull: true), column("weight", .integer)])

    /// Page 1: the schema, naming `notes` at root `notesRoot` and `tags` at page 5.
    static func schemaPage(pages: Int, notesRoot: Int = 2, freelistTrunk: Int = 0) -> [UInt8] {
        let entries: [(Int64, [SalvagedValue])] = [
            (
                1,
                [
                    Build.text("table"), Build.text("notes"), Build.text("notes"),
                    .integer(Int64(notesRoot)),
                    Build.text(
                        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, at INTEGER)"
                    ),
                ]
            ),
            (
                2,
                [
                    Build.text("table"), Build.text("tags"), Build.text("tags"), .integer(5),
                    Build.text("CREATE TABLE tags (name TEXT NOT NULL, weight INTEGER)"),
                ]
            ),
        ]
        return Build.withFileHeader(
            Build.tableLeaf(number: 1, size: size, rows: entries), size: size, pages: pages,
            freelistTrunk: freelistTrunk, freePages: freelistTrunk == 0 ? 0 : 2)
    }

    static func note(_ rowid: Int64, _ body: String, at: Int64? = nil) -> (Int64, [SalvagedValue]) {
        (rowid, [.null, Build.text(body), at.map { .integer($0) } ?? .null])
    }

    static var zeroed: [UInt8] { [UInt8](repeating: 0, count: size) }

    func salvage(_ file: [UInt8], profiles: [SalvageProfile] = [notes, tags])
        throws -> (rows: [PageSalvage.Row], outcome: PageSalvage.Outcome)
    {
        let pages = try #require(StorePages(main: ByteSource(file)))
        var rows: [PageSalvage.Row] = []
        let outcome = PageSalvage(pages: pages).salvage(["notes"], profiles: profiles) {
            table, row in
            #expect(table == "notes")
            rows.append(row)
        }
        return (rows, outcome)
    }

    @Test func theSchemaIsReadFromPageOne() throws {
        let file = Self.schemaPage(pages: 1)
        let schema = PageSalvage(pages: try #require(StorePages(main: ByteSource(file)))).schema()
        #expect(schema.map(\.name) == ["notes", "tags"])
        #expect(schema.map(\.rootPage) == [2, 5])
        #expect(schema.allSatisfy { $0.isRowIDTable })
    }

    /// The root of `notes` is zeroed: its loose leaves go to it because their rows fit its
    /// columns; a loose page of `tags`' rows does not, nor a page on the freelist (its rows
    /// were deleted), nor a cell that fits no column list.
    @Test func looseLeavesGoToTheTableTheirRowsFit() throws {
        let freelistTrunk =
            Build.bigEndian(0, width: 4) + Build.bigEndian(1, width: 4)
            + Build.bigEndian(7, width: 4)
        let file =
            Self.schemaPage(pages: 8, freelistTrunk: 6) + Self.zeroed
            + Build.tableLeaf(
                number: 3, size: Self.size,
                rows: [
                    Self.note(1, "one", at: 10), Self.note(2, "two"), Self.note(3, "three", at: -3),
                ])
            + Build.tableLeaf(
                number: 4, size: Self.size, rows: [Self.note(4, "four"), (5, [.integer(5)])])
            + Build.tableLeaf(
                number: 5, size: Self.size, rows: [(1, [Build.text("a"), .integer(1)])])
            + freelistTrunk + [UInt8](repeating: 0, count: Self.size - 12)
            + Build.tableLeaf(number: 7, size: Self.size, rows: [Self.note(99, "deleted")])
            + Build.tableLeaf(
                number: 8, size: Self.size, rows: [(2, [Build.text("b"), .integer(2)])])
        let (rows, outcome) = try salvage(file)
        #expect(rows.map(\.rowid) == [1, 2, 3, 4])
        #expect(rows[0].values == [.null, Build.text("one"), .integer(10)])
        #expect(rows[2].values == [.null, Build.text("three"), .integer(-3)])
        #expect(outcome.rows == ["notes": 4])
        #expect(outcome.unreadableCells == 1)
        #expect(outcome.ambiguousPages == 0)
    }

    /// Leaves reached from a root that still reads are its table's, even when their rows
    /// would fit another table as well; a child that cannot be read is skipped.
    @Test func leavesARootReachesAreItsTables() throws {
        let twin = SalvageProfile(table: "twin", columns: Self.notes.columns)
        let file =
            Self.schemaPage(pages: 5)
            + Build.tableInterior(number: 2, size: Self.size, children: [(3, 2)], rightmost: 4)
            + Build.tableLeaf(
                number: 3, size: Self.size, rows: [Self.note(1, "one"), Self.note(2, "two")])
            + Self.zeroed
            + Build.tableLeaf(number: 5, size: Self.size, rows: [])
        let (rows, outcome) = try salvage(file, profiles: [Self.notes, Self.tags, twin])
        #expect(rows.map(\.rowid) == [1, 2])
        #expect(outcome.ambiguousPages == 0)
    }

    /// A loose page whose rows fit two tables equally well is left out, and counted.
    @Test func aLoosePageThatFitsTwoTablesIsLeftOut() throws {
        let twin = SalvageProfile(table: "twin", columns: Self.notes.columns)
        let file =
            Self.schemaPage(pages: 5) + Self.zeroed
            + Build.tableLeaf(number: 3, size: Self.size, rows: [Self.note(1, "one")])
            + Self.zeroed
            + Build.tableLeaf(number: 5, size: Self.size, rows: [])
        let (rows, outcome) = try salvage(file, profiles: [Self.notes, Self.tags, twin])
        #expect(rows.isEmpty)
        #expect(outcome.ambiguousPages == 1)
    }

    /// A row written before a column was added has fewer values; a missing column must
    /// allow NULL or have a default, and the rowid's alias is always NULL in the record.
    @Test func aProfileAdmitsRowsFromBeforeAnAddedColumn() {
        let profile = SalvageProfile(
            table: "t",
            columns: [
                Self.column("id", .integer, alias: true), Self.column("body", .text, notNull: true),
                .init(
                    name: "n", affinity: .integer, notNull: true, hasDefault: true,
                    isRowIDAlias: false),
                Self.column("extra", .blob),
            ])
        #expect(profile.admits([.null, Build.text("x")]))
        #expect(profile.admits([.null, Build.text("x"), .integer(3), .blob([1])]))
        #expect(!profile.admits([.integer(4), Build.text("x")]))
        #expect(!profile.admits([.null, .null]))
        #expect(!profile.admits([.null, .integer(5)]))
        #expect(!profile.admits([.null, Build.text("x"), Build.text("3")]))
        #expect(!profile.admits([.null, Build.text("x"), .integer(3), .null, .null]))
        let strict = SalvageProfile(
            table: "s",
            columns: [Self.column("a", .text), Self.column("b", .integer, notNull: true)])
        #expect(!strict.admits([Build.text("x")]))
        #expect(!profile.copiesRowID && strict.copiesRowID)
    }

    /// The pages seen through the log are the pages a checkpoint writes; a transaction whose
    /// last frame is torn (a crash while writing it) is not seen.
    @Test func theLogsCommittedPagesTakeTheMainFilesPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/wal.sqlite3"
        let queue = try DatabaseQueue(path: path)
        func insert(_ range: Range<Int>) throws {
            try queue.write { db in
                for index in range {
                    try db.execute(
                        sql: "INSERT INTO t (body) VALUES (?)",
                        arguments: [String(repeating: "\(index) ", count: 40)])
                }
            }
        }
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        func bytes(_ file: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        }
        try insert(0..<300)
        let logAfterFirst = try bytes(path + "-wal")
        try queue.write { db in try db.execute(sql: "DELETE FROM t WHERE id % 3 = 0") }
        try insert(300..<400)
        let main = try bytes(path)
        let log = try bytes(path + "-wal")
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let checkpointed = try bytes(path)
        try queue.close()

        let pages = try #require(StorePages(main: ByteSource(main), log: ByteSource(log)))
        #expect(pages.count * pages.pageSize == checkpointed.count)
        for number in 1...pages.count {
            let start = (number - 1) * pages.pageSize
            #expect(pages.page(number) == Array(checkpointed[start..<start + pages.pageSize]))
        }

        // Three transactions: 300 rows, a third of them deleted, 100 more.
        #expect(try rowCount(pages) == 300)
        let first = try #require(StorePages(main: ByteSource(main), log: ByteSource(logAfterFirst)))
        #expect(try rowCount(first) == 300)
        #expect(Set(PageSalvage(pages: first).schema().map(\.name)) == ["t"])
        // The last transaction's last frame torn: the delete is seen, the 100 rows are not.
        var torn = log
        torn[torn.count - 10] ^= 0xFF
        let tornPages = try #require(StorePages(main: ByteSource(main), log: ByteSource(torn)))
        #expect(try rowCount(tornPages) == 200)
        // A log whose header does not check out is no log: the main file alone.
        var header = log
        header[30] ^= 0xFF
        let mainOnly = try #require(StorePages(main: ByteSource(main), log: ByteSource(header)))
        #expect(try rowCount(mainOnly) == 0)
    }

    /// The rows of `t` a page-by-page read of `pages` finds.
    func rowCount(_ pages: StorePages) throws -> Int {
        let salvage = PageSalvage(pages: pages)
        let root = try #require(salvage.schema().first { $0.name == "t" }?.rootPage)
        var claimed: Set<Int> = []
        return salvage.leaves(from: root, claimed: &claimed).map { salvage.rows(on: $0).count }
            .reduce(0, +)
    }
}
