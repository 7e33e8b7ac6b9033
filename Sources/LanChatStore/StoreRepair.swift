import Foundation
import GRDB
import Glibc
import LanChatCore

/// `lanchatd --repair-store`: copies what a damaged store still holds into a new one, and
/// keeps the damaged file beside it.
///
/// Why: a store that fails its integrity check is refused at start, and the two ways out the
/// refusal gave (restore a backup, or move the store aside) both give up history, even when
/// only an index was damaged and every message could still be read (QA). Indexes, the
/// triggers' tables and the search index are all derived, and SQLite can read a table whose
/// index is broken: a new store built from the readable rows loses nothing in that case, and
/// in the worse one keeps everything but the rows on unreadable pages.
///
/// How: the damaged file is opened read-only (no log folded into it, nothing written: it is
/// kept as it was found, for a closer look). A new file of the same schema version is built
/// beside it; every table is copied row by row with its rowids (events and conversations name
/// messages by rowid), with the triggers off, so nothing is counted twice; a table is read
/// from both ends up to its damaged part (`TableCopy`), and a rowid table that could not be
/// read whole is then read page by page (`PageSalvage`): one damaged interior page hides
/// every row below it from SQLite, though they are intact on their leaves (QA). A peer whose
/// row was lost comes back from its messages, rows that still name nothing are left out,
/// conversations are counted again from the messages kept, and when anything was lost every
/// outgoing stream restarts.
/// The search index is rebuilt from the messages by the daemon's indexer. Then the damaged file (with its `-wal` and `-shm`) is renamed to
/// `<store>.damaged-<time>` and the new one takes its place. The daemon's start goes on as
/// usual: the store keeps its id and generation, so the history check compares what was kept
/// with the marker, and fewer messages than the marker recorded restart the outgoing streams,
/// as after a restore.
public enum StoreRepair {
    /// What a repair did.
    public struct Report: Sendable, Equatable {
        /// Where the damaged file now is.
        public var damagedCopy: String
        /// Messages in the new store.
        public var messages: Int
        /// Rows of every table copied, and places where a table could not be read further.
        public var rowsCopied: Int
        public var unreadable: [String]
        /// What each table gave, in the order of the copy.
        public var tables: [TableCount] = []

        /// Damaged tables of which no row was kept: what they held is only in the damaged
        /// copy now. Worth more than a warning, most of all for `messages`.
        public var emptied: [String] {
            tables.filter { $0.damaged && $0.read + $0.salvaged == 0 }.map(\.table)
        }

        /// One line for the log.
        public var summary: String {
            let counts = tables.filter { $0.damaged || $0.read > 0 }.map { table in
                table.damaged
                    ? "\(table.table) \(table.read) + \(table.salvaged) salvaged"
                    : "\(table.table) \(table.read)"
            }
            let damage =
                unreadable.isEmpty
                ? "Every row was read"
                : "Where the store was damaged: \(unreadable.joined(separator: "; "))"
            return "copied \(rowsCopied) rows, \(messages) of them messages, into a new store. "
                + "Rows per table, read through its b-tree (+ salvaged page by page where that "
                + "was damaged): \(counts.joined(separator: ", ")). \(damage). The damaged file "
                + "is kept as \(damagedCopy)"
        }
    }

    /// What one table gave the new store.
    public struct TableCount: Sendable, Equatable {
        public var table: String
        /// Rows read through the table's b-tree, as SQLite reads it.
        public var read: Int
        /// Rows found on the table's pages (`PageSalvage`) that the b-tree read missed.
        public var salvaged: Int
        /// The table could not be read whole through its b-tree.
        public var damaged: Bool
        /// Rows read that the new store refused (a constraint).
        public var refused: Int
    }

    /// Repairs the store at `path` if it fails `integrity_check`; returns nil when there is no
    /// store or it is sound (nothing is changed then). `now` (milliseconds since 1970) names
    /// the damaged copy.
    ///
    /// `keyTag` names a peer whose row could not be read but whose messages could: it comes
    /// back as a nameless, unverified peer (`lanchat who --all` lists it), with its history.
    ///
    /// A store it cannot repair is left as it was; the error then says the other ways out,
    /// naming `markerPath` as the refusal at start does.
    public static func repairIfDamaged(
        path: String, marker markerPath: String?, now: Int64,
        keyTag: @escaping (PeerKey) -> String
    ) throws(StoreError) -> Report? {
        do {
            return try repair(path: path, now: now, keyTag: keyTag)
        } catch  where error.kind == .corrupt {
            throw StoreError(
                .corrupt,
                "\(error.description). lanchatd cannot repair it, and left it as it was: "
                    + MessageStore.waysOutWithoutRepair(markerPath: markerPath))
        }
    }

    private static func repair(
        path: String, now: Int64, keyTag: @escaping (PeerKey) -> String
    ) throws(StoreError) -> Report? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        try MessageStore.requireRegularFile(path, info)
        guard info.st_size > 0 else { return nil }
        // Whether the store is sound is asked as the start asks it: a file SQLite reads only
        // with the leniency below is damaged.
        if isSound(path) { return nil }
        let source: DatabaseQueue
        do {
            // The CJK index's tokenizer, as at the inspection (`MessageStore.inspect`).
            var configuration = CJKTokenizer.configuration()
            configuration.readonly = true
            configuration.label = "lanchat.store.repair.source"
            // Reads the schema even when the file is shorter than its header says (cut off:
            // QA truncated a store and SQLite refused it whole), or a schema row is damaged:
            // SQLite then goes by the pages the file has and the schema rows it can read.
            // Nothing is written through this read-only connection.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA writable_schema = ON")
            }
            source = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError.wrapping(error, while: "opening \(path) to repair it")
        }
        defer { try? source.close() }
        let lastMigration = try schemaVersion(of: source, path: path)
        let fresh = path + ".repairing"
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(fresh + suffix) }
        var log = stat()
        let bytes = Int64(info.st_size) + (stat(path + "-wal", &log) == 0 ? Int64(log.st_size) : 0)
        var report: Report
        do {
            report = try build(
                fresh, upTo: lastMigration, from: source, at: path, sourceBytes: bytes,
                recreate: PeerStub(keyTag: keyTag, firstSeen: now))
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(fresh + suffix) }
            // A full disk reaches here as an aborted transaction (found by QA: "Transaction
            // was aborted"): said as what it is, with the room a copy needs.
            if let full = Self.noRoom(for: bytes, beside: path) { throw full }
            throw StoreError.wrapping(error, while: "repairing \(path)")
        }
        try? source.close()  // before its file is renamed
        let damaged = asideName(for: path, now: now)
        report.damagedCopy = damaged
        try swap(path, damagedTo: damaged, fresh: fresh)
        return report
    }

    /// The error for a disk without room for a copy of `bytes` beside `path`, left as it was;
    /// nil when there is room (or it cannot be told).
    static func noRoom(for bytes: Int64, beside path: String) -> StoreError? {
        var info = statvfs()
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard statvfs(directory.isEmpty ? "/" : directory, &info) == 0 else { return nil }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        guard free < bytes else { return nil }
        let megabytes = { (value: Int64) in String(format: "%.1f MB", Double(value) / 1e6) }
        return StoreError(
            .unavailable,
            "repairing \(path): the disk is full: a repair writes a new copy beside the store "
                + "(up to \(megabytes(bytes))), and \(megabytes(free)) are free. Free some "
                + "room and start again; the store was left as it was")
    }

    /// Whether the store at `path` passes `integrity_check`, read as the start reads it: a
    /// file SQLite cannot open or read (damaged, or an I/O error on a failing disk) is not
    /// sound, and the repair copies what it can.
    private static func isSound(_ path: String) -> Bool {
        var configuration = CJKTokenizer.configuration()
        configuration.readonly = true
        configuration.label = "lanchat.store.repair.check"
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else {
            return false
        }
        defer { try? queue.close() }
        let check = try? queue.read { db in
            try String.fetchOne(db, sql: "PRAGMA integrity_check(1)")
        }
        return check == "ok"
    }

    /// The last migration the damaged store recorded; a store whose migrations cannot be read,
    /// or that a newer lanchat wrote, is not repaired.
    private static func schemaVersion(of source: DatabaseQueue, path: String)
        throws(StoreError) -> String
    {
        let known = Schema.migrator().migrations
        let applied: [String]
        do {
            applied = try source.read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
        } catch {
            throw StoreError(
                .corrupt,
                "\(path) cannot be repaired: which lanchat version wrote it cannot be read (\(error))"
            )
        }
        guard applied.allSatisfy(known.contains) else {
            throw StoreError(.tooNew, "\(path) was written by a newer lanchat; upgrade lanchat")
        }
        guard let last = known.last(where: applied.contains) else {
            throw StoreError(.corrupt, "\(path) cannot be repaired: it records no lanchat schema")
        }
        return last
    }

    /// Builds the new store at `fresh` from what `source`, the damaged file at `sourcePath`,
    /// can read.
    private static func build(
        _ fresh: String, upTo lastMigration: String, from source: DatabaseQueue,
        at sourcePath: String, sourceBytes: Int64, recreate stub: PeerStub
    ) throws -> Report {
        try MessageStore.createPrivateFileIfAbsent(fresh)
        // Schema v14 creates the CJK index, with its tokenizer.
        let target = try DatabaseQueue(path: fresh, configuration: CJKTokenizer.configuration())
        defer { try? target.close() }
        try Schema.migrator().migrate(target, upTo: lastMigration)
        var report = Report(damagedCopy: "", messages: 0, rowsCopied: 0, unreadable: [])
        try target.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                let triggers = try Row.fetchAll(
                    db, sql: "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger'")
                for trigger in triggers {
                    try db.execute(sql: "DROP TRIGGER \(quoted(trigger["name"]))")
                }
                var incomplete: Set<String> = []
                var salvageable: [String] = []
                for table in try copiedTables(db) {
                    let copy = try TableCopy(table: table, in: db)
                    try db.execute(sql: "DELETE FROM \(quoted(table))")
                    let outcome = try copy.run(from: source, into: db)
                    report.tables.append(
                        TableCount(
                            table: table, read: outcome.copied, salvaged: 0,
                            damaged: outcome.damaged, refused: outcome.refused))
                    if outcome.damaged && copy.hasRowID { salvageable.append(table) }
                }
                // What the b-tree could not reach may still be on the table's pages.
                var salvage = Salvage()
                if !salvageable.isEmpty {
                    salvage = try self.salvage(salvageable, from: sourcePath, into: db)
                }
                for index in report.tables.indices {
                    var table = report.tables[index]
                    table.salvaged = salvage.stored[table.table] ?? 0
                    table.refused += salvage.refused[table.table] ?? 0
                    report.tables[index] = table
                    report.rowsCopied += table.read + table.salvaged
                    if table.damaged || table.refused > 0 { incomplete.insert(table.table) }
                    if let note = note(on: table, salvaged: salvageable.contains(table.table)) {
                        report.unreadable.append("\(table.table): \(note)")
                    }
                }
                report.unreadable += salvage.notes
                // Only a peers table that lost rows explains a row naming an unknown peer;
                // otherwise that row is damaged itself, and left out below.
                let recreated = incomplete.contains("peers") ? try recreatePeers(db, stub) : 0
                if recreated > 0 {
                    report.unreadable.append(
                        "\(recreated) peer\(recreated == 1 ? "" : "s") recreated from the messages, "
                            + "nameless and unverified (a block, verification or contact of theirs "
                            + "was lost: 'lanchat who --all' lists them)")
                }
                let orphans = try leaveOutOrphans(db)
                if orphans > 0 {
                    report.rowsCopied -= orphans
                    report.unreadable.append(
                        "\(orphans) row\(orphans == 1 ? "" : "s") naming no peer or group left "
                            + "out (damaged, or of a group that was lost)")
                    incomplete.insert("messages")
                }
                // (A store older than schema v7 gets its counts from the migrations after.)
                if !incomplete.isDisjoint(with: conversationSources),
                    try db.tableExists("group_conversations")
                {
                    try db.execute(sql: conversationsRebuilt)
                }
                // A lost stream row, or lost messages, leave the peers' cursors naming seqs of
                // ours that this store no longer has: as after a restore, every stream starts
                // afresh (queued messages first), and peers drop by id what they have.
                if !incomplete.isEmpty { try MessageStore.restartEveryStream(db) }
                if incomplete.contains("events") {
                    try moveCursorsPastLostEvents(db, sourceBytes: sourceBytes)
                }
                // The search index is rebuilt from the messages: by the daemon's indexer from
                // schema v5 on (both indexes, the CJK one of v14 too: the migrations left
                // them empty), here before (its trigger was off during the copy).
                if try db.tableExists("search_progress") {
                    try db.execute(sql: "UPDATE search_progress SET indexed_through = 0")
                } else if try db.tableExists("messages_fts") {
                    try db.execute(
                        sql: "INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')")
                }
                for trigger in triggers {
                    if let sql: String = trigger["sql"] { try db.execute(sql: sql) }
                }
                return .commit
            }
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            report.messages = try Int.fetchOne(db, sql: "SELECT count(*) FROM messages") ?? 0
            let check = try String.fetchOne(db, sql: "PRAGMA integrity_check(1)")
            guard check == "ok" else {
                throw StoreError(.corrupt, "the new store fails its own check: \(check ?? "?")")
            }
        }
        return report
    }

    /// What the report says of a table that was not read whole; nil for one that was.
    private static func note(on table: TableCount, salvaged: Bool) -> String? {
        var parts: [String] = []
        if table.damaged {
            parts.append(
                salvaged
                    ? "its b-tree could not be read whole; \(table.salvaged) more rows found on "
                        + "its pages (rows on pages that could not be read are lost)"
                    : "the rows on a damaged part left out")
        }
        if table.refused > 0 { parts.append("\(table.refused) rows refused as invalid") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// How a peer that only its messages name comes back.
    struct PeerStub {
        let keyTag: (PeerKey) -> String
        let firstSeen: Int64
    }

    /// The event log lost rows, perhaps its newest: the next cursor would then be one the
    /// damaged store already gave, and a `watch --since` resuming from it would take the new
    /// events for ones it had. Every cursor to come must be past any the damaged file held, so
    /// the newest event kept moves past the most rows its bytes could hold (a row takes more
    /// than 8 bytes of a page). A watch resuming from before that event is then told of the
    /// gap (PRODUCT.md §4: it ends, naming its last cursor) rather than shown new events as
    /// old. An event log with no row left keeps its numbering: nothing tells where it was.
    static func moveCursorsPastLostEvents(_ db: Database, sourceBytes: Int64) throws {
        guard let newest = try Int64.fetchOne(db, sql: "SELECT max(cursor) FROM events") else {
            return
        }
        try db.execute(
            sql: "UPDATE events SET cursor = ? WHERE cursor = ?",
            arguments: [newest + max(sourceBytes, 0) / 8 + 1, newest])
    }

    /// Gives every valid peer key that a copied row names, but whose peer row was lost, a row
    /// of its own again; returns how many.
    private static func recreatePeers(_ db: Database, _ stub: PeerStub) throws -> Int {
        var missing: Set<Data> = []
        for table in try copiedTables(db) {
            for key in try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(quoted(table)))")
            where (key["table"] as String?) == "peers" {
                let column = quoted(key["from"])
                let keys = try Data.fetchAll(
                    db,
                    sql:
                        "SELECT DISTINCT \(column) FROM \(quoted(table)) WHERE \(column) IS NOT NULL "
                        + "AND \(column) NOT IN (SELECT pk FROM peers)")
                missing.formUnion(keys)
            }
        }
        var recreated = 0
        for bytes in missing {
            guard let key = PeerKey(bytes: bytes) else { continue }
            try db.execute(
                sql: "INSERT INTO peers (pk, id, key_tag, first_seen) VALUES (?, ?, ?, ?)",
                arguments: [key.blob, key.id, stub.keyTag(key), stub.firstSeen])
            recreated += 1
        }
        return recreated
    }

    /// Deletes the rows whose foreign key names no row (its peer or group was on a page that
    /// could not be read, or the row itself is a damaged page read as a row), until none is
    /// left; returns how many. The foreign keys were off for the copy.
    private static func leaveOutOrphans(_ db: Database) throws -> Int {
        var total = 0
        while true {
            var deleted = 0
            for table in try copiedTables(db) {
                for key in try Row.fetchAll(
                    db, sql: "PRAGMA foreign_key_list(\(quoted(table)))")
                {
                    let parent: String? = key["table"]
                    let column: String? = key["from"]
                    let target: String? = key["to"]
                    try db.execute(
                        sql: "DELETE FROM \(quoted(table)) WHERE \(quoted(column)) IS NOT NULL "
                            + "AND \(quoted(column)) NOT IN "
                            + "(SELECT \(quoted(target)) FROM \(quoted(parent)))")
                    deleted += db.changesCount
                }
            }
            guard deleted > 0 else { return total }
            total += deleted
        }
    }

    /// The tables worth copying: not SQLite's or GRDB's own, not the search index (rebuilt).
    private static func copiedTables(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_schema WHERE type = 'table'
                AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'
                AND name NOT LIKE 'messages_fts%' AND name <> 'search_progress'
                ORDER BY rootpage
                """)
    }

    /// The tables the conversations are counted from: when one could not be read whole,
    /// `conversationsRebuilt` runs.
    private static let conversationSources: Set<String> = [
        "messages", "conversations", "group_conversations",
    ]

    /// Conversations derive from the messages (the insert and read triggers keep them): one
    /// that could not be read comes back (unarchived), and every one gets its last message and
    /// unread count from the messages that were kept, not from a count that included lost ones.
    private static let conversationsRebuilt =
        conversationsRebuilt(table: "conversations", key: "pk", by: "pk", of: "group_id IS NULL")
        + conversationsRebuilt(
            table: "group_conversations", key: "gid", by: "group_id",
            of: "group_id IS NOT NULL")

    /// `conversationsRebuilt` for one table: its rows keyed by `key`, one per value of the
    /// messages' column `by`, counting the messages that `filter` (unqualified) selects.
    private static func conversationsRebuilt(
        table: String, key: String, by column: String, of filter: String
    ) -> String {
        """
        INSERT INTO \(table) (\(key), last_message, updated_at, archived, unread)
        SELECT m.\(column), m.rowid,
            CASE m.direction WHEN 0 THEN coalesce(m.received_at, m.created_at)
                ELSE m.created_at END,
            0, 0
        FROM messages m
        WHERE m.rowid IN (SELECT max(rowid) FROM messages WHERE \(filter) GROUP BY \(column))
        ON CONFLICT (\(key)) DO NOTHING;
        UPDATE \(table) SET
            last_message = (SELECT max(rowid) FROM messages m
                WHERE m.\(column) = \(table).\(key) AND \(filter)),
            unread = (SELECT count(*) FROM messages m WHERE m.\(column) = \(table).\(key)
                AND \(filter) AND m.direction = 0 AND m.read_at IS NULL);

        """
    }

    /// `<store>.damaged-<UTC time>`, never the name of an earlier one (nor of its log).
    static func asideName(for path: String, now: Int64) -> String {
        let base = path + ".damaged-" + CompactUTCTime.format(secondsSince1970: now / 1_000)
        var name = base
        var attempt = 1
        while ["", "-wal", "-shm"].contains(where: { access(name + $0, F_OK) == 0 }) {
            attempt += 1
            name = base + "-\(attempt)"
        }
        return name
    }

    /// Puts `fresh` in the place of `path`, the damaged file (and its log) moved aside first.
    /// A rename that fails puts back what was moved and removes `fresh`: the store is then
    /// as it was found.
    private static func swap(_ path: String, damagedTo damaged: String, fresh: String)
        throws(StoreError)
    {
        var moved: [String] = []
        func undo(_ failure: String) -> StoreError {
            let reason = String(cString: strerror(errno))
            for suffix in moved.reversed() { rename(damaged + suffix, path + suffix) }
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(fresh + suffix) }
            return StoreError(.unavailable, "\(failure): \(reason); \(path) was left as it was")
        }
        for suffix in ["", "-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
            guard rename(path + suffix, damaged + suffix) == 0 else {
                throw undo("cannot move \(path)\(suffix) aside to \(damaged)\(suffix)")
            }
            moved.append(suffix)
            // The damaged store's messages stay the user's alone, whatever mode it had
            // (found by QA: 0644 aside, with its WAL).
            var info = stat()
            if lstat(damaged + suffix, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                _ = chmod(damaged + suffix, 0o600)
            }
        }
        guard rename(fresh, path) == 0 else {
            throw undo("cannot put the repaired store \(fresh) in place of \(path)")
        }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
    }

    /// A name from our own schema, quoted for SQL (none holds a quote).
    static func quoted(_ name: String?) -> String {
        "\"\(name ?? "")\""
    }
}
