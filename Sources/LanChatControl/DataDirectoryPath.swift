#if canImport(Glibc)
    import Glibc
#endif

/// Where lanchatd keeps its data when no `--data-dir` names it (PRODUCT.md §2), and the lock
/// file that makes a data directory one daemon's. Shared by `lanchatd`, which takes the lock,
/// and `lanchat doctor`, which looks at who holds it: both must name the same file.
public enum DataDirectoryPath {
    /// The file in the data directory that the running daemon holds an exclusive `flock` on,
    /// with its PID written in it.
    public static let lockFileName = "lanchatd.lock"

    /// `$XDG_DATA_HOME/lanchat`, else `~/.local/share/lanchat` (`HomeDirectory`). A relative
    /// `XDG_DATA_HOME` is ignored, as the XDG Base Directory specification says. Nil when
    /// there is no home directory either: `--data-dir` must name one.
    public static func defaultDirectory(environment: [String: String], uid: uid_t = getuid())
        -> String?
    {
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? HomeDirectory.resolve(environment: environment, uid: uid).map {
                $0 + "/.local/share"
            }
        return dataHome.map { $0 + "/lanchat" }
    }
}
