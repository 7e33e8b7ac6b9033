internal import CSodium
import Glibc
import LanChatCore

/// The POSIX steps behind the key file (PROTOCOL.md §5): directory checks, the atomic
/// create (temp + fsync + rename + fsync dir), stale temporary removal and moving a broken key
/// aside. Synchronous; used at start-up only.
package enum KeyFileSystem {
    /// Steps of the atomic write, for the crash-injection test hook.
    package enum Step: Sendable {
        case write
        case fsync
        case rename
    }

    /// The temporary-name marker of the atomic procedure: `.<name>.tmp-<random>`.
    static let temporaryMarker = ".tmp-"

    static func parent(of path: String) -> String { directoryPart(of: path) }

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The directory must exist (or be created 0700), be a directory, be ours, and not be
    /// group- or world-writable.
    static func checkDirectory(_ path: String, createIfMissing: Bool) throws(IdentityKeyError) {
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            guard code == ENOENT, createIfMissing else {
                throw IdentityKeyError(.directoryUnusable(reason: describe(code)), path: path)
            }
            guard mkdir(path, 0o700) == 0 || errno == EEXIST, stat(path, &info) == 0 else {
                throw IdentityKeyError(.directoryUnusable(reason: describe(errno)), path: path)
            }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw IdentityKeyError(.directoryUnusable(reason: "not a directory"), path: path)
        }
        guard info.st_uid == geteuid() else {
            throw IdentityKeyError(.directoryNotOwned(owner: info.st_uid), path: path)
        }
        guard info.st_mode & 0o022 == 0 else {
            throw IdentityKeyError(.directoryWritableByOthers(mode: info.st_mode), path: path)
        }
    }

    /// Reads until EOF or the buffer is full; returns the byte count.
    static func readAll(_ descriptor: Int32, into buffer: SecretBuffer, path: String)
        throws(IdentityKeyError) -> Int
    {
        var total = 0
        while total < buffer.count {
            let count = read(descriptor, buffer.pointer + total, buffer.count - total)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw IdentityKeyError(.unreadable(reason: describe(errno)), path: path)
            }
            total += count
        }
        return total
    }

    /// Deletes `.*.tmp-*` files left by an interrupted atomic write; returns how many.
    @discardableResult
    package static func removeStaleTemporaries(in directory: String) -> Int {
        guard let handle = opendir(directory) else { return 0 }
        defer { closedir(handle) }
        var removed = 0
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("."), name.contains(temporaryMarker) else { continue }
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// Temp file (O_EXCL, O_NOFOLLOW, mode 0600 at creation) → write all → fsync → close →
    /// rename over the final name → fsync the directory. A crash leaves the old or the new file.
    static func writeAtomically(
        _ identity: IdentityKeyPair, directory: String, name: String, stopAfter: Step? = nil
    ) throws(IdentityKeyError) {
        let finalPath = directory + "/" + name
        let image: SecretBuffer
        do {
            image = try IdentityKeyFile.encode(identity)
        } catch {
            throw IdentityKeyError(.cryptoFailure(error.description), path: finalPath)
        }
        var suffix = [UInt8](repeating: 0, count: 8)
        randombytes_buf(&suffix, suffix.count)
        let temporaryPath =
            directory + "/." + name + temporaryMarker
            + suffix.map { String($0, radix: 16) }.joined()
        let descriptor = open(
            temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw IdentityKeyError(
                .writeFailed(step: "create", reason: describe(errno)), path: finalPath)
        }
        func failure(_ step: String, _ code: Int32) -> IdentityKeyError {
            unlink(temporaryPath)
            return IdentityKeyError(
                .writeFailed(step: step, reason: describe(code)), path: finalPath)
        }
        var written = 0
        while written < image.count {
            let count = write(descriptor, image.pointer + written, image.count - written)
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(descriptor)
                throw failure("write", code)
            }
            written += count
        }
        if stopAfter == .write {
            close(descriptor)
            return
        }
        guard fsync(descriptor) == 0 else {
            let code = errno
            close(descriptor)
            throw failure("fsync", code)
        }
        if stopAfter == .fsync {
            close(descriptor)
            return
        }
        guard close(descriptor) == 0 else { throw failure("close", errno) }
        guard rename(temporaryPath, finalPath) == 0 else { throw failure("rename", errno) }
        if stopAfter == .rename { return }
        try syncDirectory(directory, path: finalPath)
    }

    /// Renames an existing key file to `<path>.broken-<UTC timestamp>` (never overwriting an
    /// earlier one); nil when there is no file.
    static func moveAside(path: String, directory: String) throws(IdentityKeyError) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw IdentityKeyError(.unreadable(reason: describe(errno)), path: path)
        }
        let base = path + ".broken-" + utcTimestamp()
        var target = base
        var attempt = 1
        while lstat(target, &info) == 0 {
            attempt += 1
            target = base + "-\(attempt)"
        }
        guard rename(path, target) == 0 else {
            throw IdentityKeyError(
                .writeFailed(step: "rename aside", reason: describe(errno)), path: path)
        }
        // A broken key still holds most of a secret: kept for the user only, whatever mode
        // it had (found by QA: a refused 0644 key stayed 0644 aside). Not through a link.
        if lstat(target, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            _ = chmod(target, 0o600)
        }
        try syncDirectory(directory, path: path)
        return target
    }

    static func syncDirectory(_ directory: String, path: String) throws(IdentityKeyError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw IdentityKeyError(
                .writeFailed(step: "open directory", reason: describe(errno)), path: path)
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw IdentityKeyError(
                .writeFailed(step: "fsync directory", reason: describe(errno)), path: path)
        }
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    static func utcTimestamp() -> String {
        CompactUTCTime.format(secondsSince1970: Int64(time(nil)))
    }
}
