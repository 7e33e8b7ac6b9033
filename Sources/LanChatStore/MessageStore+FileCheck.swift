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
}
