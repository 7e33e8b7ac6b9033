/// Where the control socket lives (PRODUCT.md §2). Shared by `lanchatd`, which listens there,
/// and `lanchat`, which connects there, so that both resolve the same path from the same
/// inputs.
///
/// The resolution is a pure function of its inputs so that it can be tested without touching
/// the process environment; callers pass `ProcessInfo`-free values (`environ`, `getuid()`).
public enum ControlSocketPath {
    /// The environment variable that overrides the default path on both programs.
    public static let environmentVariable = "LANCHAT_SOCKET"
    /// The socket's file name inside its directory.
    public static let fileName = "lanchatd.sock"

    /// Resolves the socket path, in order of precedence:
    /// 1. `explicit` (`--socket PATH`),
    /// 2. `LANCHAT_SOCKET`,
    /// 3. `$XDG_RUNTIME_DIR/lanchat/lanchatd.sock`,
    /// 4. `/tmp/lanchat-$UID/lanchatd.sock`.
    ///
    /// Empty values count as unset. `XDG_RUNTIME_DIR` must be absolute to be used: the XDG
    /// Base Directory specification says a relative value is invalid and must be ignored.
    /// A trailing slash on `XDG_RUNTIME_DIR` does not produce a double slash.
    public static func resolve(explicit: String?, environment: [String: String], uid: UInt32)
        -> String
    {
        if let explicit, !explicit.isEmpty {
            return explicit
        }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return directory(environment: environment, uid: uid) + "/" + fileName
    }

    /// The directory holding the default socket (created 0700 by the daemon): the per-user
    /// runtime directory when there is one, else a per-uid directory under `/tmp`.
    public static func directory(environment: [String: String], uid: UInt32) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return withoutTrailingSlashes(runtime) + "/lanchat"
        }
        return "/tmp/lanchat-\(uid)"
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") {
            trimmed = trimmed.dropLast()
        }
        return trimmed == "/" ? "" : String(trimmed)
    }
}
