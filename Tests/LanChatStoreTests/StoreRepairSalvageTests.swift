import Foundation
import GRDB
import Glibc
import Testing

@testable import LanChatStore

/// `--repair-store` on a real store whose damage SQLite cannot read past: a zeroed root page
/// of `messages` (QA: every message was lost), a file cut short (QA: refused). What SQLite
/// cannot reach is read page by page (`PageSalvage`).
@Suite("Store repair: page salvage of a store")
struct StoreRepairSalvageTests {
    let base = StoreRepairTests()
    static let pageSize = 4_096

    /// Each message's own values, by rowid (its stream and seq are left out: a repair that
    /// lost anything restarts the outgoing streams, which gives queued messages new ones).
    func messages(_ path: String) throws -> [Int64: String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT rowid, hex(uuid) || '|' || hex(pk) || '|' || direction || '|' || text
                        || '|' || created_at || '|' || coalesce(received_at, '-') || '|'
                        || coalesce(read_at, '-') || '|' || coalesce(hex(group_id), '-') AS d
                    FROM messages
                    """)
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["rowid"], $0["d"]) })
        }
    }

    /// Overwrites page `number` of the file at `path` with zeros.
    func zero(_ path: String, page number: Int) throws {
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64((number - 1) * Self.pageSize))
        try file.write(contentsOf: Data(count: Self.pageSize))
    }

    func pages(of name: String, in path: String, _ filter: String = "1") throws -> [Int] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Int.fetchAll(
                db, sql: "SELECT pageno FROM dbstat WHERE name = ? AND \(filter) ORDER BY pageno",
                arguments: [name])
        }
    }

    /// QA's repro: the root page of `messages` zeroed. SQLite reads none of its rows; every
    /// one is still on its leaf page, and comes back with its rowid and values.
    @Test func aZeroedRootPageOfMessagesLosesNoMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await base.filledStore(directory)
        let path = directory.storePath
        let before = try messages(path)
        let root = try base.count(
            path, "SELECT rootpage FROM sqlite_schema WHERE name = 'messages'")
        try zero(path, page: root)

        let report = try #require(try base.repair(directory))
        let table = try #require(report.tables.first { $0.table == "messages" })
        #expect(table.damaged && table.read == 0)
        #expect(table.salvaged == StoreRepairTests.received + 3)
        #expect(report.messages == StoreRepairTests.received + 3)
        #expect(report.emptied.isEmpty)
        #expect(
            report.summary.contains("messages 0 + \(StoreRepairTests.received + 3) salvaged"))
        #expect(try messages(path) == before)

        let store = try base.open(directory)
        let conversation = try #require(try await store.conversations(archived: true).first)
        #expect(conversation.unread == StoreRepairTests.received - 500)
        #expect(
            try await store.history(with: StoreRepairTests.peer, limit: 5).messages.last?.text
                == "three")
        #expect(try await store.completeSearchIndex() == StoreRepairTests.received + 3)
        try store.close()
    }

    /// QA's second repro: the file cut short, which SQLite refuses whole (the header's page
    /// count is past the file's end). Every row on a page the file still holds whole is kept;
    /// the page the cut runs through is lost with those after it.
    @Test func aTruncatedStoreKeepsTheRowsOfItsWholePages() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await base.filledStore(directory)
        let path = directory.storePath
        let before = try messages(path)
        let leaves = try pages(of: "messages", in: path, "pagetype = 'leaf'")
        let cutPage = leaves[leaves.count * 2 / 3]
        let whole = try base.count(
            path,
            "SELECT sum(ncell) FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' "
                + "AND pageno < \(cutPage)")
        #expect(whole > 0 && whole < StoreRepairTests.received)
        #expect(truncate(path, off_t((cutPage - 1) * Self.pageSize + 1_000)) == 0)
        #expect(throws: StoreError.self) { try base.open(directory) }

        let report = try #require(try base.repair(directory))
        let kept = try messages(path)
        #expect(kept.count == whole && report.messages == whole, "\(report.summary)")
        #expect(kept.allSatisfy { before[$0.key] == $0.value })
        #expect(try base.count(path, "PRAGMA foreign_key_check") == -1)
        let store = try base.open(directory)
        #expect(try await store.history(with: StoreRepairTests.peer, limit: 5).messages.count == 5)
        try store.close()
    }

    /// Every page of `messages` zeroed: nothing of it is left, and the report names it
    /// apart, for the daemon to say at error level.
    @Test func aDamagedTableThatGivesNothingIsNamed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await base.filledStore(directory)
        for page in try pages(of: "messages", in: directory.storePath) {
            try zero(directory.storePath, page: page)
        }
        let report = try #require(try base.repair(directory))
        #expect(report.messages == 0)
        #expect(report.emptied == ["messages"])
    }
}
