import Glibc
import LanChatCore

/// Puts a finished backup at its path as a file this process made, never by a name another
/// user could have swapped meanwhile: a hard link from the private staging file where the
/// destination is on the same file system; else its bytes copied into an unnamed file
/// (`O_TMPFILE`) of the destination's directory, linked at the path once whole and synced.
/// Where the file system has no unnamed files (FAT), the copy is made at the path itself,
/// created exclusively. An existing file at the path is never replaced.
enum BackupPublisher {
    /// Publishes `staging` (the finished copy, in the data directory) at `path`; returns its
    /// size. The caller removes `staging`.
    static func publish(_ staging: String, as path: String) throws(BackupError) -> Int {
        let source = open(staging, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard source >= 0 else { throw failure("cannot read its staging file", errno, path: path) }
        defer { close(source) }
        var facts = stat()
        guard fstat(source, &facts) == 0 else {
            throw failure("cannot read its staging file", errno, path: path)
        }
        guard fsync(source) == 0 else {
            throw failure("cannot sync its staging file", errno, path: path)
        }
        if link(staging, path) == 0 {
            syncDirectory(of: path)
            return Int(facts.st_size)
        }
        switch errno {
        case EEXIST: throw createdMeanwhile(path)
        case EXDEV, EPERM, ENOTSUP, EOPNOTSUPP, EMLINK: break
        case let code: throw failure("cannot name the copy", code, path: path)
        }
        try copyIntoPlace(from: source, to: path)
        syncDirectory(of: path)
        return Int(facts.st_size)
    }

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Glibc's module leaves out.
    private static let unnamedFile = Int32(0o20_000_000) | O_DIRECTORY

    private static func copyIntoPlace(from source: Int32, to path: String) throws(BackupError) {
        let directory = directoryPart(of: path)
        var target = open(directory, unnamedFile | O_WRONLY | O_CLOEXEC, 0o600)
        let unnamed = target >= 0
        if !unnamed {
            switch errno {
            case EOPNOTSUPP, EISDIR, EINVAL:
                target = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                guard target >= 0 else {
                    if errno == EEXIST { throw createdMeanwhile(path) }
                    throw failure("cannot create it", errno, path: path)
                }
            case let code:
                throw failure("cannot create it", code, path: path)
            }
        }
        defer { close(target) }
        do throws(BackupError) {
            try copyBytes(from: source, to: target, path: path)
            guard fsync(target) == 0 else { throw failure("cannot sync it", errno, path: path) }
            if unnamed {
                let linked = linkat(
                    AT_FDCWD, "/proc/self/fd/\(target)", AT_FDCWD, path, AT_SYMLINK_FOLLOW)
                guard linked == 0 else {
                    if errno == EEXIST { throw createdMeanwhile(path) }
                    throw failure("cannot name the copy", errno, path: path)
                }
            }
        } catch {
            // Made at the path itself: what is there is ours, half written.
            if !unnamed { unlink(path) }
            throw error
        }
    }

    private static func copyBytes(from source: Int32, to target: Int32, path: String)
        throws(BackupError)
    {
        guard lseek(source, 0, SEEK_SET) == 0 else {
            throw failure("cannot read its staging file", errno, path: path)
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read its staging file", errno, path: path)
            }
            if count == 0 { return }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes {
                    write(target, $0.baseAddress.map { $0 + written }, count - written)
                }
                if step < 0 {
                    if errno == EINTR { continue }
                    throw failure("cannot write it", errno, path: path)
                }
                written += step
            }
        }
    }

    /// So that the new name survives a crash as the file does.
    private static func syncDirectory(of path: String) {
        let directory = open(directoryPart(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = fsync(directory)
        close(directory)
    }

    private static func createdMeanwhile(_ path: String) -> BackupError {
        BackupError(
            "\(path) was created meanwhile; a backup never overwrites a file, nothing was kept")
    }

    private static func failure(_ what: String, _ code: Int32, path: String) -> BackupError {
        BackupError(
            "backup to \(path) failed, nothing was kept: \(what): \(String(cString: strerror(code)))"
        )
    }
}
