import Foundation
import GRDB
import Glibc
import LanChatCore
import Synchronization

/// Why a backup was not made. Nothing is left at the destination (a file the backup created
/// is removed again); an existing file is never touched.
public struct BackupError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// What `backup(to:)` wrote.
public struct BackupSummary: Sendable, Equatable {
    public let path: String
    public let bytes: Int
    /// Messages in the copy, counted in the copy itself.
    public let messages: Int
}

extension MessageStore {
    /// Copies the store to a new file at `path` (absolute) through SQLite's online backup
    /// API while the store stays in use: the copy is one consistent snapshot (a read
    /// transaction on a reader, copied in one step), so writes go on meanwhile. The copy is
    /// a single self-contained file (rollback journal, no `-wal` beside it) of mode 0600; an
    /// existing `path` is refused, never overwritten. Restoring it is copying it to
    /// `lanchat.sqlite3` while the daemon is stopped.
    public func backup(to path: String) async throws(BackupError) -> BackupSummary {
        guard path.hasPrefix("/") else { throw BackupError("the backup path must be absolute") }
        // A trailing slash names a directory, which open() reports as "Is a directory" even
        // when there is none (QA); say what is wrong with the argument instead.
        guard !path.hasSuffix("/") else {
            throw BackupError("\(path) names a directory; give the backup a file name in it")
        }
        try Self.refuseExisting(path)
        // Made in the store's own directory (the data directory, 0700), where no one else
        // can reach the file SQLite opens by name nor its journal; only the finished copy is
        // published at `path`, as a file this process made (found by QA: built beside
        // `path`, in a directory others could write, another user swapped the partial file
        // for one of theirs between our create and SQLite's open, and got a readable copy of
        // every message; or planted its journal or WAL). A stop half-way leaves a staging
        // file in the data directory, removed by the next backup.
        let staging = Self.stagingPath(forStore: self.path)
        Self.activeStaging.withLock { _ = $0.insert(staging) }
        defer { Self.activeStaging.withLock { _ = $0.remove(staging) } }
        Self.removeStaleStaging(besideStore: self.path)
        let descriptor = Glibc.open(
            staging, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BackupError(
                "backup to \(path) failed, nothing was kept: cannot create its staging file "
                    + "\(staging): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        func removeStaging() {
            for leftover in [staging, staging + "-journal", staging + "-wal", staging + "-shm"] {
                unlink(leftover)
            }
        }
        defer { removeStaging() }
        // Staged batches would be in the copy too (its first open stores them), but the
        // summary counts messages: store them first.
        await settleStaged()
        let messages: Int
        do {
            // The copy is page by page and opens no table, but a connection that might
            // knows the CJK index's tokenizer, as every one of the store's.
            let destination = try DatabaseQueue(
                path: staging, configuration: CJKTokenizer.configuration())
            let source = pool
            messages = try await destination.writeWithoutTransaction { copy in
                try source.read { store in try store.backup(to: copy) }
                // The store is in WAL mode and the copy took its header: one file is easier
                // to keep and to restore than a pair.
                try copy.execute(sql: "PRAGMA journal_mode = DELETE")
                return try Int.fetchOne(copy, sql: "SELECT count(*) FROM messages") ?? 0
            }
            try destination.close()
        } catch {
            // By its result code, as every store error: on a full disk SQLite's own message
            // for the copy is "not an error".
            let reason = StoreError.wrapping(error, while: "copying").description
            throw BackupError("backup to \(path) failed, nothing was kept: \(reason)")
        }
        let bytes = try BackupPublisher.publish(staging, as: path)
        // The copy keeps the generation it was taken at; the store and its marker move past
        // it, so that a restore of the copy is seen as older than what was last used here
        // (`HistoryCheck`) and its streams restart. A copy that could not be made older is
        // removed: a failed backup keeps nothing, as any other. One short write, rare: done
        // on the caller's thread.
        if let markerPath {
            do {
                try Self.advanceGeneration(pool, path: path, markerPath: markerPath)
            } catch {
                unlink(path)
                throw BackupError(
                    "backup to \(path) failed, nothing was kept: this store could not be "
                        + "marked newer than the copy: \(error)")
            }
        }
        return BackupSummary(path: path, bytes: bytes, messages: messages)
    }

    /// An existing `path` is refused, never overwritten (a directory said as such).
    private static func refuseExisting(_ path: String) throws(BackupError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        // Followed: a link to a directory names that directory (QA).
        var target = stat()
        if status.st_mode & S_IFMT == S_IFDIR
            || (stat(path, &target) == 0 && target.st_mode & S_IFMT == S_IFDIR)
        {
            throw BackupError("\(path) names a directory; give the backup a file name in it")
        }
        throw BackupError(
            "\(path) already exists; a backup never overwrites a file, choose a new path")
    }

    /// `.backup-RANDOM.partial` beside the store (in the data directory).
    static func stagingPath(forStore store: String) -> String {
        directoryPart(of: store) + "/" + stagingPrefix + "\(UInt32.random(in: 0...UInt32.max))"
            + ".partial"
    }

    static let stagingPrefix = ".backup-"

    /// The staging files of backups under way in this process (one daemon uses a data
    /// directory), which `removeStaleStaging` leaves.
    static let activeStaging = Mutex<Set<String>>([])

    /// Staging files a daemon stopped half-way through a backup left beside the store.
    static func removeStaleStaging(besideStore store: String) {
        let directory = directoryPart(of: store)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            return
        }
        let active = activeStaging.withLock { $0 }
        for name in names where name.hasPrefix(stagingPrefix) && name.contains(".partial") {
            let path = directory + "/" + name
            let base = path.components(separatedBy: ".partial").first.map { $0 + ".partial" }
            if let base, active.contains(base) { continue }
            unlink(path)
        }
    }

}
