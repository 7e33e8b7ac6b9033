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
            return controlError(errno: code, path: path, hints: hints)
        }
    }

    /// ENOENT, ECONNREFUSED (a stale socket file) and ENOTDIR mean nothing listens there:
    /// exit 69 with the start hint. EACCES/EPERM: exit 77. Anything else is unexpected.
    package static func controlError(
        errno code: Int32, path: String, hints: DaemonHints = .userService
    ) -> ControlError {
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
