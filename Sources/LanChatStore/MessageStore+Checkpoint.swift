import GRDB

/// Copying the WAL into the main file (checkpointing) off the writer's path.
///
/// SQLite checkpoints by itself when a commit leaves the WAL over `wal_autocheckpoint`
/// pages, inside that commit: the writer copies a thousand pages and syncs the main file
/// while the next message waits, once every few hundred messages. The daemon instead calls
/// `checkpointWAL` a moment after commits (`StoreMaintenance`), on a connection of its own:
/// a PASSIVE checkpoint takes no write lock, so messages keep committing while it copies,
/// and a page written by many commits (an index's last leaf, a conversation) is copied once.
/// The writer's own threshold stays as a backstop, raised so that it does not fire while
/// the daemon keeps up.
extension MessageStore {
    /// The writer's own checkpoint threshold (pages of 4 KiB): 40 MiB of WAL.
    static let writerCheckpointPages = 10_000

    public struct CheckpointResult: Sendable, Equatable {
        /// Pages in the WAL when the checkpoint ran.
        public var walPages: Int
        /// Of those, pages now copied into the main file.
        public var copiedPages: Int
    }

    /// A PASSIVE checkpoint on the store's checkpoint connection: copies what no reader
    /// still needs, never blocks the writer, syncs the main file (`synchronous=FULL`) before
    /// the WAL may be reused.
    @discardableResult
    public func checkpointWAL() async throws(StoreError) -> CheckpointResult {
        do {
            return try await checkpointConnection.writeWithoutTransaction { db in
                let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
                let walPages: Int = row?[1] ?? 0
                let copiedPages: Int = row?[2] ?? 0
                return CheckpointResult(
                    walPages: max(0, walPages), copiedPages: max(0, copiedPages))
            }
        } catch {
            throw StoreError.wrapping(error, while: "checkpointing \(path)")
        }
    }

    /// The connection `checkpointWAL` runs on (a plain read-write connection: GRDB's pool
    /// readers are read-only, and its writer is the one connection that must not wait).
    static func openCheckpointConnection(path: String) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "lanchat.store.checkpoint"
        configuration.busyMode = .timeout(5)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            return queue
        } catch {
            throw StoreError.wrapping(error, while: "opening \(path) for checkpoints")
        }
    }
}
