import Glibc

extension MessageStore {
    /// Refuses a store path that is there but is no regular file (a directory, say), before
    /// SQLite opens it: SQLite answers only "disk I/O error" then (QA), which sends the user
    /// looking at the disk rather than at the path.
    static func requireRegularFile(_ path: String, _ info: stat) throws(StoreError) {
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG else { return }
        throw StoreError(
            .unavailable,
            "\(path) is \(type == S_IFDIR ? "a directory" : "not a regular file"), not a store "
                + "file: lanchatd keeps its messages in a file of that name; move it aside")
    }

    /// The store and the `-wal` and `-shm` beside it must be readable and writable by this
    /// user before SQLite opens any (found by QA: a store of mode 0400 was refused as "read-only
    /// or not accessible", naming neither the file nor its fix, and the refused start left a
    /// `-shm` of mode 0400 that refused the next start once the store was mended).
    static func requireWritable(_ path: String) throws(StoreError) {
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, access(file, R_OK | W_OK) != 0 else { continue }
            throw notWritable(
                file, mode: info.st_mode, owner: info.st_uid, code: errno, user: getuid())
        }
    }

    /// What `requireWritable` says of `file`, with its mode and owner and the fix.
    static func notWritable(_ file: String, mode: mode_t, owner: uid_t, code: Int32, user: uid_t)
        -> StoreError
    {
        let shownMode = String(mode & 0o7777, radix: 8)
        let shownOwner = owner == user ? "you" : "uid \(owner)"
        let fix =
            code == EROFS
            ? "the file system is mounted read-only"
            : owner == user ? "chmod 600 \(file)" : "chown \(user) \(file) && chmod 600 \(file)"
        return StoreError(
            .unavailable,
            "\(file) cannot be read and written by this user (mode \(shownMode), owner "
                + "\(shownOwner): \(String(cString: strerror(code)))); fix: \(fix)")
    }
}
