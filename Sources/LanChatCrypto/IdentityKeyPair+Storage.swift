internal import CSodium
import Glibc

/// Loading, creating and resetting `identity.key` (PROTOCOL.md §5). Called once at daemon
/// start (and by `--reset-identity`), before any connection; synchronous file I/O.
extension IdentityKeyPair {
    /// The key file's name inside the data directory.
    public static let fileName = "identity.key"

    /// Strict load of `<directory>/identity.key`; creates a key only when the file does not
    /// exist (ENOENT). A corrupt or unsafe file is an error and is left untouched: it is never
    /// regenerated silently. Creates a missing data directory with mode 0700 and removes stale
    /// temporary files of an interrupted write.
    public static func loadOrCreate(directory: String) throws(IdentityKeyError) -> (
        IdentityKeyPair, created: Bool
    ) {
        try KeyFileSystem.checkDirectory(directory, createIfMissing: true)
        KeyFileSystem.removeStaleTemporaries(in: directory)
        let path = directory + "/" + fileName
        if let identity = try loadIfPresent(path: path) { return (identity, false) }
        let identity = try newIdentity(path: path)
        try KeyFileSystem.writeAtomically(identity, directory: directory, name: fileName)
        return (identity, true)
    }

    /// Strict load of an existing key file: owner, mode, no symlink, the directory's owner and
    /// mode, then every content check. Never creates anything.
    public static func load(path: String) throws(IdentityKeyError) -> IdentityKeyPair {
        try KeyFileSystem.checkDirectory(KeyFileSystem.parent(of: path), createIfMissing: false)
        guard let identity = try loadIfPresent(path: path) else {
            throw IdentityKeyError(.unreadable(reason: "no such file"), path: path)
        }
        return identity
    }

    /// Moves a broken `<directory>/identity.key` to `identity.key.broken-<UTC timestamp>` and
    /// creates a new key, or creates one where there is none. The explicit `--reset-identity`;
    /// returns the new key and where the old file went (nil if none). A key that loads is
    /// kept and the reset refused (`resetOfHealthyKey`): the flag left in a service's command
    /// line must not make the node a new identity at every start.
    public static func reset(directory: String) throws(IdentityKeyError) -> (
        IdentityKeyPair, movedTo: String?
    ) {
        try KeyFileSystem.checkDirectory(directory, createIfMissing: true)
        KeyFileSystem.removeStaleTemporaries(in: directory)
        let path = directory + "/" + fileName
        do throws(IdentityKeyError) {
            if let healthy = try loadIfPresent(path: path) {
                throw IdentityKeyError(
                    .resetOfHealthyKey(keyTag: Fingerprint.keyTag(healthy.publicKey)), path: path)
            }
        } catch {
            switch error.code {
            case .symbolicLink, .wrongOwner, .insecureMode:
                // Refused for how it is kept, not for what it holds: `chmod`, `chown` or the
                // real file in place of the link keeps this node's identity, which a reset
                // would throw away (QA: a 0644 key was replaced by a new one).
                if let kept = keyBehindRefusal(path: path) {
                    throw IdentityKeyError(
                        .resetOfRefusedKey(
                            keyTag: Fingerprint.keyTag(kept.publicKey), problem: error.description),
                        path: path)
                }
                // Another user's file we may not even read: nothing says it is damaged.
                if access(path, R_OK) != 0 && (errno == EACCES || errno == EPERM) { throw error }
            case .resetOfHealthyKey:
                throw error
            default:
                break
            }
        }
        let movedTo = try KeyFileSystem.moveAside(path: path, directory: directory)
        let identity = try newIdentity(path: path)
        try KeyFileSystem.writeAtomically(identity, directory: directory, name: fileName)
        return (identity, movedTo)
    }

    /// Test hook: the atomic write stopped at a chosen step, as a crash would leave it.
    package static func writeInterruptedForTesting(
        _ identity: IdentityKeyPair, directory: String, stopAfter step: KeyFileSystem.Step
    ) throws(IdentityKeyError) {
        try KeyFileSystem.writeAtomically(
            identity, directory: directory, name: fileName, stopAfter: step)
    }

    /// Nil on ENOENT; the key when every check passes; otherwise the exact error.
    private static func loadIfPresent(path: String) throws(IdentityKeyError) -> IdentityKeyPair? {
        // Non-blocking: a FIFO in its place is refused (not a regular file) instead of holding
        // the start until something writes to it (found by QA).
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw IdentityKeyError(.symbolicLink, path: path) }
            throw IdentityKeyError(.unreadable(reason: KeyFileSystem.describe(code)), path: path)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw IdentityKeyError(.unreadable(reason: KeyFileSystem.describe(errno)), path: path)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw IdentityKeyError(.notRegularFile, path: path)
        }
        guard info.st_uid == geteuid() else {
            throw IdentityKeyError(.wrongOwner(owner: info.st_uid), path: path)
        }
        guard info.st_mode & 0o077 == 0 else {
            throw IdentityKeyError(.insecureMode(mode: info.st_mode), path: path)
        }
        guard info.st_size == IdentityKeyFile.size else {
            throw IdentityKeyError(
                .corrupt(reason: "\(info.st_size) bytes, expected \(IdentityKeyFile.size)"),
                path: path)
        }
        let image: SecretBuffer
        do {
            image = try SecretBuffer(count: IdentityKeyFile.size + 1)
        } catch {
            throw IdentityKeyError(.cryptoFailure(error.description), path: path)
        }
        let count = try KeyFileSystem.readAll(descriptor, into: image, path: path)
        defer { image.wipe() }
        return try IdentityKeyFile.decode(image, count: count, path: path)
    }

    /// The key a file refused for its link, owner or mode holds, if it holds one: read
    /// through the link, whatever its mode, never written. Nil for anything else.
    private static func keyBehindRefusal(path: String) -> IdentityKeyPair? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            info.st_size == IdentityKeyFile.size,
            let image = try? SecretBuffer(count: IdentityKeyFile.size + 1)
        else { return nil }
        defer { image.wipe() }
        guard let count = try? KeyFileSystem.readAll(descriptor, into: image, path: path) else {
            return nil
        }
        return try? IdentityKeyFile.decode(image, count: count, path: path)
    }

    private static func newIdentity(path: String) throws(IdentityKeyError) -> IdentityKeyPair {
        do {
            return try generate()
        } catch {
            throw IdentityKeyError(.cryptoFailure("key generation failed: \(error)"), path: path)
        }
    }
}
