import Foundation
import GRDB
import Glibc
import LanChatCore
import Synchronization

/// The durable message store: one SQLite file in WAL mode with `synchronous=FULL`, so a
/// committed transaction survives a power cut. It holds the pin store (peers), the outgoing
/// streams, the incoming cursors and the messages.
///
/// Thread-safety: every method may be called from any task; writes are serialised by GRDB's
/// single writer connection, reads run concurrently on WAL snapshots. Methods are `async` and
/// run on GRDB's threads, except the latency path: `enqueue` and `commitIncoming` of a few
/// messages run their transaction on the caller's thread (`callersThreadWriteLimit`, one such
/// write at a time in the process), holding it for one small commit instead of paying two
/// thread hand-offs.
public final class MessageStore: Sendable {
    /// The store's file in a data directory (lanchatd(8) FILES).
    public static let fileName = "lanchat.sqlite3"

    let pool: DatabasePool
    public let path: String
    /// The data directory's store marker (`StoreMarker`), if this store keeps one.
    public let markerPath: String?
    /// What the opening noticed that is worth a warning but no refusal (fewer messages than
    /// at the last clean stop: a restored backup, or a partial loss).
    public let warnings: [String]
    /// `groups()` as last read (`GroupsCache`).
    let groupsCache = GroupsCache()
    /// Calls `onEventsCommitted` after each commit that logged an event, having invalidated
    /// `groupsCache` first when the commit wrote groups.
    let eventObserver: EventCommitObserver
    /// Checkpoints the WAL after the commit that made it long, not inside it.
    let checkpointer: WALCheckpointer
    /// Whether large batches write their event log and conversations set-based
    /// (`BatchBookkeeping`): the schema has v8 (a test's store of an older version has not).
    let batchBookkeeping: Bool
    /// How many received messages are staged, not yet messages (`MessageStore+Staging`).
    let staging = StagedCount()

    private init(
        pool: DatabasePool, checkpointer: WALCheckpointer, batchBookkeeping: Bool, path: String,
        markerPath: String?, warnings: [String]
    ) {
        self.pool = pool
        self.checkpointer = checkpointer
        self.batchBookkeeping = batchBookkeeping
        self.path = path
        self.markerPath = markerPath
        self.warnings = warnings
        eventObserver = EventCommitObserver(groupsCache: groupsCache)
        pool.add(transactionObserver: eventObserver, extent: .databaseLifetime)
    }

    /// Opens (creating with mode 0600 if absent) and migrates the store. Refuses a file that
    /// is not a lanchat store, fails `PRAGMA quick_check` (`integrity_check` after a crash),
    /// or was written by a newer version.
    ///
    /// With `marker` (the daemon passes `<data dir>/store.marker`), it also refuses a store
    /// that lost its history (`HistoryCheck`), and writes the marker when there is none yet.
    ///
    /// Every refusal comes before anything is written (`inspect`): a refused store, its log
    /// and its marker are left exactly as they were found, for a backup or a closer look.
    ///
    /// `onEventsCommitted` is the event log's commit hook (see `onEventsCommitted`).
    ///
    /// `owner`: this node's key. A store that lists it among its peers is another node's
    /// (its backup restored here) and is refused with the rest, before anything is written
    /// (found by QA: it ran, and sent that node's queued messages as ours).
    public static func open(
        path: String, marker markerPath: String? = nil, owner: PeerKey? = nil,
        onEventsCommitted: (@Sendable () -> Void)? = nil
    ) throws(StoreError) -> MessageStore {
        try open(
            path: path, marker: markerPath, owner: owner, onEventsCommitted: onEventsCommitted,
            schemaUpTo: nil)
    }

    /// `open`, with the schema migrated only up to the migration named `schemaUpTo` (tests
    /// build a store of an older version with it).
    package static func open(
        path: String, marker markerPath: String? = nil, owner: PeerKey? = nil,
        onEventsCommitted: (@Sendable () -> Void)? = nil, schemaUpTo lastMigration: String?
    ) throws(StoreError) -> MessageStore {
        let marker = try markerPath.flatMap { path throws(StoreError) in try StoreMarker.load(path)
        }
        var verdict = try inspect(
            path: path, marker: marker, markerPath: markerPath, owner: owner)
        try createPrivateFileIfAbsent(path)
        var configuration = Configuration()
        configuration.label = "lanchat.store"
        configuration.busyMode = .timeout(5)
        // Each reader connection keeps its own page cache, schema and allocations for the
        // daemon's lifetime (about 150 KB each when idle); GRDB's default of five readers
        // is opened by a burst of sessions starting at once. Two keep reads concurrent with
        // each other and with the writer (docs/benchmarks.md, figure 7).
        configuration.maximumReaderCount = 2
        // Temporary files in memory. A batch insert's statement journal (the pages a
        // 256-row statement changes, kept so the statement alone can be undone) spills to a
        // temporary file past 64 KiB; created, written page by page and unlinked for every
        // statement, those files took more write calls than the WAL itself.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // The CJK search index's tokenizer (schema v14): every connection may read it.
            CJKTokenizer.register(on: db)
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB sets synchronous=NORMAL when it enables WAL; a message that was
            // acknowledged must survive a power cut, so the one writer connection runs FULL.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
        } catch {
            throw StoreError.wrapping(error, while: "opening \(path)")
        }
        do {
            if let lastMigration {
                try Schema.migrator().migrate(pool, upTo: lastMigration)
            } else {
                try Schema.migrator().migrate(pool)
            }
        } catch {
            throw StoreError.wrapping(error, while: "migrating \(path)")
        }
        if let markerPath {
            // Without a marker (a first start, a store restored into a new data directory, or
            // the marker moved aside to keep this store), nothing says the store is the one
            // the peers last heard from: its streams restart as after a restore. A new store
            // has none, so that costs nothing.
            if verdict.wentBack || marker == nil {
                let restarted = try restartEveryStream(pool, path: path)
                if marker == nil, restarted > 0 {
                    verdict.warnings.append(
                        "\(markerPath) is missing: \(restarted) outgoing streams start afresh, as after a restore (messages still queued go out again; peers drop those they already have)"
                    )
                }
            }
            // This start is a new generation, and the marker names it: a crash before the
            // next clean stop must not restart the streams again. On a full disk that cannot
            // be written; the daemon still starts, to show what it holds, as it did before
            // generations (found checking this change: it exited 73).
            do {
                try advanceGeneration(
                    pool, path: path, markerPath: markerPath, recorded: marker?.generation,
                    counted: verdict.found)
            } catch {
                verdict.warnings.append(
                    "\(error.description); a backup restored before this store's next start would not be noticed"
                )
            }
        }
        let batchBookkeeping: Bool
        do {
            let (hasBatchTable, hasStage) = try pool.read { db in
                (try db.tableExists("message_batch"), try db.tableExists("incoming_staged"))
            }
            batchBookkeeping = hasBatchTable
            // Batches a crash left staged become messages before anything reads the store.
            if hasStage { _ = try materializeAllStaged(pool, setBased: batchBookkeeping) }
        } catch {
            throw StoreError.wrapping(error, while: "checking \(path)")
        }
        let checkpointer = WALCheckpointer(pool: pool)
        pool.writeWithoutTransaction { db in checkpointer.install(on: db) }
        let store = MessageStore(
            pool: pool, checkpointer: checkpointer, batchBookkeeping: batchBookkeeping,
            path: path, markerPath: markerPath, warnings: verdict.warnings)
        store.onEventsCommitted = onEventsCommitted
        return store
    }

    /// The checks that may refuse a store, on a read-only connection, before anything is
    /// created or written: no WAL-mode set-up, no checkpoint when it closes. Refused before,
    /// a store was changed all the same (GRDB's WAL set-up writes a transaction, and closing
    /// folded a log left by a crash into the file being refused; found by QA). Returns the
    /// history check's warnings.
    ///
    /// A log left non-empty (a crash, or a log copied in from elsewhere) gets the full
    /// `integrity_check`: SQLite takes any well-formed log, and one of another store's made
    /// this one's rows and indexes disagree, which `quick_check` does not look at (QA). It
    /// reads the whole file, so only then.
    static func inspect(
        path: String, marker: StoreMarker?, markerPath: String?, owner: PeerKey? = nil
    )
        throws(StoreError) -> HistoryCheck.Verdict
    {
        var info = stat()
        let found = stat(path, &info) == 0
        if found {
            try requireRegularFile(path, info)
            try requireWritable(path)
        }
        guard found, info.st_size > 0 else {
            // Nothing here yet: a first start, unless the marker names a store that was here.
            guard let marker, let markerPath else { return HistoryCheck.Verdict() }
            return try HistoryCheck.verify(
                HistoryCheck.Contents(storeID: nil, messages: 0, peers: 0), against: marker,
                store: path, markerPath: markerPath)
        }
        var log = stat()
        let thorough = stat(path + "-wal", &log) == 0 && log.st_size > 0
        // With the CJK index's tokenizer: an integrity check that reaches into the FTS5
        // tables (SQLite 3.44 on) must not find a table it cannot open.
        var configuration = CJKTokenizer.configuration()
        configuration.readonly = true
        configuration.label = "lanchat.store.inspection"
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            let check = try queue.read { db in
                try String.fetchOne(
                    db, sql: thorough ? "PRAGMA integrity_check(20)" : "PRAGMA quick_check")
            }
            guard check == "ok" else {
                throw damaged(
                    StoreError(
                        .corrupt, "\(path) fails its integrity check: \(check ?? "no answer")"),
                    markerPath: markerPath)
            }
            if try queue.read({ db in try Schema.migrator().hasBeenSuperseded(db) }) {
                throw StoreError(.tooNew, "\(path) was written by a newer lanchat; upgrade lanchat")
            }
            var verdict = HistoryCheck.Verdict()
            if let marker, let markerPath {
                let found = try queue.read { db in try contents(db) }
                verdict = try HistoryCheck.verify(
                    found, against: marker, store: path, markerPath: markerPath)
                verdict.found = found
            }
            if let owner, try queue.read({ db in try listsAsPeer(db, owner) }) {
                throw StoreError(
                    .corrupt,
                    "\(path) knows this node's own key as a peer: it is another node's store "
                        + "(its backup restored here?). Put this node's own store back, or give "
                        + "that store its own identity.key in a data directory of its own")
            }
            return verdict
        } catch let error as StoreError {
            throw error
        } catch {
            let wrapped = StoreError.wrapping(error, while: "checking \(path)")
            throw wrapped.kind == .corrupt ? damaged(wrapped, markerPath: markerPath) : wrapped
        }
    }

    /// Whether the store's peers include `key`.
    private static func listsAsPeer(_ db: Database, _ key: PeerKey) throws -> Bool {
        // A store with no tables yet (created, nothing written) has no peers.
        guard try db.tableExists("peers") else { return false }
        return try Bool.fetchOne(
            db, sql: "SELECT 1 FROM peers WHERE pk = ?", arguments: [key.blob]) ?? false
    }

    /// A damaged file's refusal, with the way out (the history check's and a newer schema's
    /// say their own).
    private static func damaged(_ error: StoreError, markerPath: String?) -> StoreError {
        let reason = error.description
        return StoreError(
            .corrupt,
            "\(reason)\(reason.hasSuffix(".") ? "" : ".") lanchatd does not start on it: run "
                + "lanchatd --repair-store once to copy what it still holds into a new store (the "
                + "damaged file is kept beside it), or "
                + waysOutWithoutRepair(markerPath: markerPath))
    }

    /// What is left when a damaged store is not repaired: said by the refusal at start and by
    /// a repair that failed (`StoreRepair`).
    static func waysOutWithoutRepair(markerPath: String?) -> String {
        let marker = markerPath.map { " and \($0)" } ?? ""
        return "restore it from a backup (lanchat backup), or move it\(marker) aside to start "
            + "with no history."
    }

    /// The store's id and row counts; before migration the tables may not exist.
    static func contents(of pool: DatabasePool, path: String) throws(StoreError)
        -> HistoryCheck.Contents
    {
        do {
            return try pool.read { db in try contents(db) }
        } catch {
            throw StoreError.wrapping(error, while: "reading \(path)")
        }
    }

    private static func contents(_ db: Database) throws -> HistoryCheck.Contents {
        guard try db.tableExists("store_identity") else {
            let messages =
                try db.tableExists("messages")
                ? Int.fetchOne(db, sql: "SELECT count(*) FROM messages") ?? 0 : 0
            let peers =
                try db.tableExists("peers")
                ? Int.fetchOne(db, sql: "SELECT count(*) FROM peers") ?? 0 : 0
            return HistoryCheck.Contents(storeID: nil, messages: messages, peers: peers)
        }
        let hasGeneration = try db.columns(in: "store_identity").contains {
            $0.name == "generation"
        }
        return HistoryCheck.Contents(
            storeID: try String.fetchOne(db, sql: "SELECT id FROM store_identity"),
            messages: try Int.fetchOne(db, sql: "SELECT count(*) FROM messages") ?? 0,
            peers: try Int.fetchOne(db, sql: "SELECT count(*) FROM peers") ?? 0,
            generation: hasGeneration
                ? try Int64.fetchOne(db, sql: "SELECT generation FROM store_identity") : nil)
    }

    /// A new generation of the store, recorded in its marker: at every start, and after a
    /// backup (so that the copy is older than the store it came from and than the marker).
    /// Past the marker's too: a restored copy goes on after every generation used here, so
    /// that a later restore of another copy taken meanwhile is still seen as older.
    /// `counted`: the rows as the start's check read them, so they are not counted again (a
    /// full count of a large store); nil counts them now.
    static func advanceGeneration(
        _ pool: DatabasePool, path: String, markerPath: String, recorded: Int64? = nil,
        counted: HistoryCheck.Contents? = nil
    ) throws(StoreError) {
        let generation: Int64?
        do {
            generation = try pool.write { db in
                try db.execute(
                    sql: "UPDATE store_identity SET generation = max(generation, ?) + 1",
                    arguments: [recorded ?? 0])
                return try Int64.fetchOne(db, sql: "SELECT generation FROM store_identity")
            }
        } catch {
            throw StoreError.wrapping(error, while: "recording a new generation of \(path)")
        }
        var current: HistoryCheck.Contents
        if let counted, counted.storeID != nil {
            current = counted
        } else {
            current = try contents(of: pool, path: path)
        }
        current.generation = generation
        try current.marker?.write(to: markerPath)
    }

    /// SQLite would create the file with the umask's mode; the store holds private messages,
    /// so it is created 0600 first and SQLite gives its -wal and -shm files the same mode.
    /// A store that exists (restored by a copy that kept the umask's mode, say) and is ours
    /// is made 0600 too, with its -wal and -shm.
    static func createPrivateFileIfAbsent(_ path: String) throws(StoreError) {
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            Glibc.close(descriptor)
        } else if errno != EEXIST {
            let reason = String(cString: strerror(errno))
            throw StoreError(.unavailable, "cannot create \(path): \(reason)")
        } else {
            // A store kept elsewhere through a symbolic link (lanchatd(8) FILES) is the file
            // it points to, and SQLite keeps its -wal and -shm beside that one (found by QA:
            // a linked store stayed 0644, and its WAL with it).
            var stored = path
            if let resolved = realpath(path, nil) {
                stored = String(cString: resolved)
                free(resolved)
            }
            for file in [stored, stored + "-wal", stored + "-shm"] { makePrivate(file) }
        }
    }

    /// Takes group and other access away from `path` if it is a regular file of ours.
    private static func makePrivate(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            info.st_uid == geteuid(), info.st_mode & 0o077 != 0
        else { return }
        _ = chmod(path, info.st_mode & 0o700)
    }

    /// Closes the store on a clean stop: checkpoints the WAL into the main file and truncates
    /// it (so `lanchat.sqlite3` alone holds everything, and a `-wal` lost later loses
    /// nothing), records the store in its marker, then closes the connections. Later calls
    /// fail with `unavailable`.
    ///
    /// The explicit checkpoint is needed: GRDB closes the writer while the readers are still
    /// open, so SQLite's own checkpoint-on-last-close never runs (the last connection to
    /// close is a read-only one).
    public func close() throws(StoreError) {
        var failure: StoreError?
        do {
            // Staged batches become messages now: the marker counts them, and the file left
            // behind needs no recovery.
            if staging.count > 0 {
                staging.remove(try Self.materializeAllStaged(pool, setBased: batchBookkeeping))
            }
        } catch {
            failure = StoreError.wrapping(error, while: "storing staged messages in \(path)")
        }
        checkpointer.close()
        do {
            let busy = try pool.writeWithoutTransaction { db in
                try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")?[0] as Int?
            }
            if busy != 0 {
                failure = StoreError(
                    .unavailable, "cannot checkpoint \(path): a reader kept the WAL busy")
            }
        } catch {
            failure = StoreError.wrapping(error, while: "checkpointing \(path)")
        }
        if let markerPath {
            do {
                try Self.contents(of: pool, path: path).marker?.write(to: markerPath)
            } catch {
                failure = failure ?? error
            }
        }
        do {
            try pool.close()
            checkpointer.releaseHook()
        } catch {
            failure = failure ?? StoreError.wrapping(error, while: "closing \(path)")
        }
        if let failure { throw failure }
    }

    /// Runs a write transaction on the writer's queue, mapping SQLite failures to
    /// `StoreError`. One path for every durable write: this is the one below without its
    /// latency-path options.
    func write<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        try await write(action, onCallersThread: false, body)
    }

    /// Writes of at most this many messages (`enqueue`, `commitIncoming`) run on the caller's
    /// thread (`write(_:onCallersThread:afterCommit:_:)`).
    static let callersThreadWriteLimit = 16

    /// `write`, and then `afterCommit` with the result, on the writer, once the commit has
    /// succeeded and before the caller's task resumes. Not through GRDB's
    /// `afterNextTransaction`: a COMMIT that fails on a full disk (SQLite rolls the
    /// transaction back itself) leaves such an observer registered, and it fired at the next
    /// commit instead, which acknowledged a batch that was never stored (scenario
    /// 25-store-failures caught it).
    ///
    /// With `onCallersThread`, the transaction runs through GRDB's synchronous API: the
    /// writer's serial queue runs a `sync` block on the calling thread when it is free (and
    /// the caller waits for it otherwise), so the write costs no hop to the writer's thread
    /// and back, which was about a tenth of a `send --wait` (docs/benchmarks.md, round 7).
    /// It holds a thread of the concurrency pool for the transaction, fsync included, so it
    /// is for the latency path only: a few messages, a fraction of a millisecond. Batches
    /// larger than `callersThreadWriteLimit` take the writer's queue, and so does every write
    /// that finds another one already on a caller's thread (`callersThreadWriteBusy`).
    ///
    /// With `settling` (all but staging itself), staged batches become messages first, in
    /// the same transaction: a message written now must come after every one received
    /// before it (rowids are the conversation's order), and a write may read them.
    func write<T: Sendable>(
        _ action: String, onCallersThread: Bool, settling: Bool = true,
        afterCommit: (@Sendable (T) -> Void)? = nil,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        let staging = staging
        let setBased = batchBookkeeping
        let transaction: @Sendable (Database) throws -> T = { db in
            var settled = 0
            let result = try Self.committed(db, action) { db in
                if settling, staging.count > 0 {
                    settled = try Self.materializeStaged(db, batches: .max, setBased: setBased)
                }
                return try body(db)
            }
            staging.remove(settled)
            afterCommit?(result)
            return result
        }
        do {
            if onCallersThread,
                Self.callersThreadWriteBusy.compareExchange(
                    expected: false, desired: true, ordering: .acquiring
                ).exchanged
            {
                defer { Self.callersThreadWriteBusy.store(false, ordering: .releasing) }
                return try Self.writeHere(pool, transaction)
            }
            return try await pool.writeWithoutTransaction(transaction)
        } catch {
            throw explained(StoreError.wrapping(error, while: action), while: action)
        }
    }

    /// Set while a transaction runs on a caller's thread, in this process (all stores). The
    /// concurrency pool has as many threads as cores; a second transaction blocking one more
    /// of them would stall every other task meanwhile, and transactions of different stores
    /// (the benchmark's daemons in one process) would wait for each other's fsync instead of
    /// overlapping on GRDB's threads: a message to ten members took 5.5 ms instead of 4.
    private static let callersThreadWriteBusy = Atomic<Bool>(false)

    /// GRDB's synchronous `writeWithoutTransaction` (an `async` caller would get the
    /// asynchronous overload).
    private static func writeHere<T>(
        _ pool: DatabasePool, _ transaction: (Database) throws -> T
    ) throws -> T {
        try pool.writeWithoutTransaction(transaction)
    }

    /// Runs `body` in a transaction on the writer and returns its result once the COMMIT has
    /// succeeded (GRDB's `inTransaction` throws otherwise).
    private static func committed<T>(
        _ db: Database, _ action: String, _ body: (Database) throws -> T
    ) throws -> T {
        var result: T?
        try db.inTransaction {
            result = try body(db)
            return .commit
        }
        guard let result else { throw StoreError(.unavailable, "\(action): no result") }
        return result
    }

    /// SQLite reports a write refused by a read-only or full file system as a generic I/O
    /// error. Asking the file system directly (creating a file beside the store) tells which,
    /// also when the kernel made it read-only after an error without changing the mount
    /// flags (ext4 "emergency_ro"), and the user should hear that.
    func explained(_ error: StoreError, while action: String) -> StoreError {
        guard error.kind == .unavailable, !error.description.contains("read-only"),
            !error.description.contains("disk is full")
        else { return error }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let probe = (directory.isEmpty ? "." : directory) + "/.lanchat-write-probe-\(getpid())"
        let descriptor = Glibc.open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            Glibc.close(descriptor)
            unlink(probe)
            return error
        }
        switch errno {
        case EROFS:
            return StoreError(.unavailable, "\(action): the store's file system is read-only")
        case ENOSPC, EDQUOT: return StoreError(.unavailable, "\(action): the disk is full")
        case EACCES, EPERM: return StoreError(.unavailable, "\(action): the store is not writable")
        default: return error
        }
    }

    /// A write transaction for bookkeeping the peer can restore: `delivered` and `read`
    /// marks, last seen. It commits with `synchronous=NORMAL` (no fsync of its own; the WAL is
    /// synced by the next FULL commit or checkpoint). A crash can lose such a mark, and the
    /// peer's HELLO (its cursor is the authority) restores it; messages and cursors always
    /// commit FULL. Saves one fsync per acknowledged batch on the sender's single writer.
    func writeBookkeeping<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                // Cached: a mark is written for nearly every acknowledged batch, and parsing
                // the two pragmas each time cost as much as the update.
                try db.cachedStatement(sql: "PRAGMA synchronous = NORMAL").execute()
                defer { try? db.cachedStatement(sql: "PRAGMA synchronous = FULL").execute() }
                return try Self.committed(db, action, body)
            }
        } catch {
            throw explained(StoreError.wrapping(error, while: action), while: action)
        }
    }

    /// A read on one of the reader connections. With `settling` (all but the reads of the
    /// outbox, cursors, peers and groups, which staged batches do not change), staged
    /// batches become messages first, so the read sees every message received so far.
    func read<T: Sendable>(
        _ action: String, settling: Bool = true,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        if settling { await settleStaged() }
        do {
            return try await pool.read(body)
        } catch {
            throw StoreError.wrapping(error, while: action)
        }
    }

    /// `journal_mode` and `synchronous` as SQLite reports them (for tests and `doctor`).
    public func durabilitySettings() async throws(StoreError) -> (
        journalMode: String, synchronous: Int
    ) {
        try await write("reading settings") { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            )
        }
    }
}

extension MessageStore {
    /// Test hook: runs raw SQL on the writer connection (e.g. `PRAGMA max_page_count` to make
    /// the disk look full).
    package func executeForTesting(_ sql: String) async throws(StoreError) {
        do {
            try await pool.writeWithoutTransaction { db in try db.execute(sql: sql) }
        } catch {
            throw StoreError.wrapping(error, while: "test statement")
        }
    }
}
