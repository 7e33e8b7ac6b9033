import Foundation
import GRDB
import Glibc

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
        // Written under a name of its own beside `path`, and given `path` only once whole
        // (found by QA: a daemon killed half-way left a file at `path` that SQLite opened,
        // with its journal, as an empty store passing its integrity check). A stop half-way
        // leaves at most `.NAME.partial-…`, which says what it is.
        let partial = Self.partialPath(for: path)
        let descriptor = Glibc.open(
            partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BackupError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        func removePartial() {
            for leftover in [partial, partial + "-journal", partial + "-wal", partial + "-shm"] {
                unlink(leftover)
            }
        }
        // Staged batches would be in the copy too (its first open stores them), but the
        // summary counts messages: store them first.
        await settleStaged()
        let messages: Int
        do {
            // The copy is page by page and opens no table, but a connection that might
            // knows the CJK index's tokenizer, as every one of the store's.
            let destination = try DatabaseQueue(
                path: partial, configuration: CJKTokenizer.configuration())
            let source = pool
            messages = try await destination.writeWithoutTransaction { copy in
                try source.read { store in try store.backup(to: copy) }
                // The store is in WAL mode and the copy took its header: one file is easier
                // to keep and to restore than a pair.
                try copy.execute(sql: "PRAGMA journal_mode = DELETE")
                return try Int.fetchOne(copy, sql: "SELECT count(*) FROM messages") ?? 0
            }
            try destination.close()
            guard Self.syncFile(partial) else { throw BackupError("cannot sync \(partial)") }
        } catch {
            removePartial()
            // By its result code, as every store error: on a full disk SQLite's own message
            // for the copy is "not an error".
            let reason =
                (error as? BackupError)?.description
                ?? StoreError.wrapping(error, while: "copying").description
            throw BackupError("backup to \(path) failed, nothing was kept: \(reason)")
        }
        do throws(BackupError) {
            try Self.publish(partial, as: path)
        } catch {
            removePartial()
            throw error
        }
        var info = stat()
        let bytes = stat(path, &info) == 0 ? Int(info.st_size) : 0
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

    /// `.NAME.partial-RANDOM` in the directory of `path`.
    static func partialPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let directory = path[..<slash]
        let name = path[path.index(after: slash)...]
        return "\(directory)/.\(name).partial-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Gives the finished copy its name: a hard link, which fails rather than replace a file
    /// made at `path` meanwhile, then the partial name removed. Where the file system has no
    /// hard links (FAT), a rename, once more checking that nothing is at `path`.
    private static func publish(_ partial: String, as path: String) throws(BackupError) {
        if link(partial, path) == 0 {
            unlink(partial)
            return
        }
        let code = errno
        switch code {
        case EEXIST:
            throw BackupError(
                "\(path) was created meanwhile; a backup never overwrites a file, nothing was kept")
        case EPERM, ENOTSUP, EOPNOTSUPP, EMLINK:
            try refuseExisting(path)
            guard rename(partial, path) == 0 else {
                throw BackupError(
                    "cannot name the copy \(path): \(String(cString: strerror(errno)))")
            }
        default:
            throw BackupError("cannot name the copy \(path): \(String(cString: strerror(code)))")
        }
    }

    /// `fsync` of the file at `path`, so that the name given to it never names less.
    private static func syncFile(_ path: String) -> Bool {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        return Glibc.fsync(descriptor) == 0
    }
}
