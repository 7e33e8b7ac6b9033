import LanChatControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns a failed connection attempt into the `ControlError` the user sees. Kept apart from
/// the socket code so that every branch can be tested without provoking the errno (a test
/// running as root cannot be refused by file permissions).
package enum ConnectErrorMapping {
    package static func controlError(
        for failure: ConnectFailure, path: String, hints: DaemonHints = .userService
    ) -> ControlError {
        switch failure {
        case .pathTooLong(let byteCount):
            return .invalidParams(
                "socket path is \(byteCount) bytes, at most \(UnixSocket.maxPathBytes) fit in a "
                    + "Unix socket address: \(path)")
        case .system(let code):
            let kind = code == ECONNREFUSED ? pathKind(path) : nil
            return controlError(errno: code, path: path, hints: hints, kind: kind)
        case .foreignServer(let uid):
            return .permissionDenied(
                "the control socket \(path) is served by uid \(uid), not by you (uid "
                    + "\(geteuid())): lanchat talks only to your own lanchatd, nothing was sent "
                    + "('lanchat doctor' shows where yours is)")
        }
    }

    /// What is at a path that refused a connection.
    package enum PathKind: Sendable { case socket, directory, file }

    /// ENOENT, ECONNREFUSED (a stale socket file) and ENOTDIR mean nothing listens there:
    /// exit 69 with the start hint, unless the path is a directory or a file, which no
    /// lanchatd could serve: then exit 69 saying so (found by QA: it said to start a daemon
    /// on that path, which lanchatd refuses). EACCES/EPERM: exit 77. Anything else is
    /// unexpected.
    package static func controlError(
        errno code: Int32, path: String, hints: DaemonHints = .userService,
        kind: PathKind? = nil
    ) -> ControlError {
        if code == ECONNREFUSED, let kind, kind != .socket {
            return .daemonNotRunning(
                "\(path) is \(kind == .directory ? "a directory" : "a file"), not a socket: give "
                    + "the control socket lanchatd creates ('lanchat doctor' shows where it is)")
        }
        switch code {
        case ENOENT, ECONNREFUSED, ENOTDIR:
            return .daemonNotRunning(
                "lanchatd is not running (nothing listens on \(path)); \(hints.start)")
        case EACCES, EPERM:
            return .permissionDenied(
                "permission denied on the control socket \(path) (it belongs to the user running "
                    + "lanchatd; each user runs their own daemon)")
        default:
            return .internalError("cannot connect to \(path): \(describe(errno: code))")
        }
    }

    /// What `lstat` finds at `path`, nil when nothing (or it cannot tell).
    static func pathKind(_ path: String) -> PathKind? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFSOCK: return .socket
        case S_IFDIR: return .directory
        default: return .file
        }
    }

    /// `strerror` text for an errno, e.g. "Connection refused".
    package static func describe(errno code: Int32) -> String {
        errnoDescription(code)
    }
}

/// `strerror` text for an errno, e.g. "Connection refused"; `error N` if there is none.
/// Shared with the CLI for its standard-input errors.
package func errnoDescription(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}
