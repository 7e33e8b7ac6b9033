import Glibc

/// Whether another user could put something else in the place of an entry of `directory`:
/// one the configuration file and the data and socket directories are refused in. The
/// directory belongs to another user (root excepted), or others may write it (group write of
/// our own group excepted) without a sticky bit, which keeps their hands off our entries.
enum DirectoryTrust: Equatable {
    case ownedBy(uid_t)
    case writableByOthers(mode: String)

    /// Nil when only we (and root) could replace what is in `directory`, or it cannot be
    /// looked at (the caller's own open or create then says why).
    static func danger(of directory: String, uid: uid_t, gid: gid_t) -> DirectoryTrust? {
        var facts = stat()
        guard stat(directory, &facts) == 0 else { return nil }
        if facts.st_uid != uid && facts.st_uid != 0 { return .ownedBy(facts.st_uid) }
        let othersWrite =
            facts.st_mode & S_IWOTH != 0 || (facts.st_mode & S_IWGRP != 0 && facts.st_gid != gid)
        guard othersWrite, facts.st_mode & S_ISVTX == 0 else { return nil }
        return .writableByOthers(mode: String(facts.st_mode & 0o7777, radix: 8))
    }
}
