#if canImport(Glibc)
    import Glibc
#endif

/// The user's home directory, for the paths under `~` of PRODUCT.md §2: `HOME` when it is an
/// absolute path, else the home the password database gives the user (what `~` is to a
/// shell with no `HOME`). Nil when neither is: then nothing may be read or kept under `~`.
///
/// lanchatd used to put `/tmp` in place of a missing `HOME` (found by QA): it then read its
/// configuration file from `/tmp/.config`, which any local user can write, ran that file's
/// `notify-command` and kept its identity key in `/tmp/.local`.
public enum HomeDirectory {
    public static func resolve(environment: [String: String], uid: uid_t = getuid()) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        return accountHome(uid: uid)
    }

    /// `pw_dir` of `uid`'s entry, when it is an absolute path.
    static func accountHome(uid: uid_t) -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getpwuid_r(uid, &entry, &buffer, buffer.count, &found)
        guard status == 0, found != nil, let directory = entry.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }
}
