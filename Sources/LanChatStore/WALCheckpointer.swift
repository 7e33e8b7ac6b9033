import GRDB
internal import GRDBSQLite
import Synchronization

/// Copies the write-ahead log back into the database file right *after* the commit that
/// made it long, instead of inside that commit.
///
/// Why: SQLite's automatic checkpoint runs in the `COMMIT` that takes the log past 1 000
/// pages, before that statement returns. The commit then also writes those pages into the
/// main file and syncs it, several milliseconds more, and whatever waits for the commit
/// waits for that too: the peer's ACK (sent as an incoming batch commits), a `send`'s
/// answer. In figure 1 those were the slowest sends.
///
/// How: SQLite calls the writer's WAL hook after every commit with the log's length; this
/// replaces the automatic checkpoint's hook. Past `threshold` pages it queues one PASSIVE
/// checkpoint on the writer's own queue, so it runs after the job that committed (its ACK
/// or answer already on its way) and before the next write. It is the same work as before
/// on the same connection, so the log still starts over at the next commit, and
/// durability is unchanged. Only the moment moves: into the idle time after a commit
/// when there is any, and at worst, under a stream of writes, to the front of the next one.
///
/// Not on a connection of its own, concurrent with the writer (tried, docs/benchmarks.md
/// round 9): under a stream of commits such a checkpoint never copies the whole log before
/// the next commit, so the log is never started over; it grew to tens of megabytes, and
/// every commit that grows the file also syncs its size, which made each one slower.
///
/// Ownership: the `MessageStore` owns it. SQLite keeps a bare pointer as the hook's
/// context: a box holding this object weakly, freed by `releaseHook()` once the writer is
/// closed. A failed checkpoint is tried again after the next commit, as SQLite's own is.
final class WALCheckpointer: Sendable {
    /// SQLite's own default for the automatic checkpoint, in pages.
    static let threshold: Int32 = 1_000

    private struct State {
        /// A checkpoint is queued: commits meanwhile ask for nothing.
        var scheduled = false
        var closed = false
        var done = 0
        var failed = 0
    }

    private weak let pool: DatabasePool?
    private let state = Mutex(State())
    private let hookBox = Mutex<Unmanaged<HookBox>?>(nil)

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Replaces the writer's automatic checkpoint with this object. `db` is the writer.
    func install(on db: Database) {
        let box = Unmanaged.passRetained(HookBox(self))
        hookBox.withLock { $0 = box }
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, _, _, pages in
                if let context {
                    Unmanaged<HookBox>.fromOpaque(context).takeUnretainedValue().checkpointer?
                        .logGrew(to: pages)
                }
                return SQLITE_OK
            }, box.toOpaque())
    }

    /// Frees the hook's context. Only once the writer is closed: SQLite may call the hook
    /// until then.
    func releaseHook() {
        hookBox.withLock { box in
            box?.release()
            box = nil
        }
    }

    private final class HookBox: Sendable {
        weak let checkpointer: WALCheckpointer?
        init(_ checkpointer: WALCheckpointer) { self.checkpointer = checkpointer }
    }

    /// Called by SQLite on the writer, inside its commit: queues and returns.
    private func logGrew(to pages: Int32) {
        guard pages >= Self.threshold, let pool else { return }
        let schedule = state.withLock { state in
            guard !state.scheduled, !state.closed else { return false }
            state.scheduled = true
            return true
        }
        guard schedule else { return }
        pool.asyncWriteWithoutTransaction { [self] db in
            let succeeded = (try? db.checkpoint(.passive)) != nil
            state.withLock { state in
                state.scheduled = false
                if succeeded { state.done += 1 } else { state.failed += 1 }
            }
        }
    }

    /// Checkpoints run, and those that failed.
    var checkpoints: (done: Int, failed: Int) { state.withLock { ($0.done, $0.failed) } }

    /// Nothing is queued from now on (the store is closing; its own TRUNCATE checkpoint
    /// follows).
    func close() {
        state.withLock { $0.closed = true }
    }
}
