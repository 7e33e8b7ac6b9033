import LanChatClient
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the system D-Bus accepts connections: a connect to its socket, closed at once
/// (the bus drops a client that leaves before authenticating), never blocking.
enum SystemBusProbe {
    /// Where the system bus listens on Debian and every systemd distribution.
    static let socketPath = "/run/dbus/system_bus_socket"

    static func probe(_ path: String = socketPath) -> SystemBusFacts {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT || errno == ENOTDIR
                ? .missing(path: path) : .refusing(path: path, reason: errnoDescription(errno))
        }
        let fd = socket(
            AF_UNIX,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                | Int32(SOCK_NONBLOCK.rawValue), 0)
        // Not knowing is no reason to blame the bus.
        guard fd >= 0, let address = UnixSocketAddress(path: path) else {
            if fd >= 0 { close(fd) }
            return .accepting
        }
        defer { close(fd) }
        let failure = address.withSockaddr { connect(fd, $0, $1) == 0 ? 0 : errno }
        // A full backlog (EAGAIN) is a busy bus, not a missing one.
        guard failure != 0, failure != EAGAIN, failure != EINPROGRESS else { return .accepting }
        return .refusing(path: path, reason: errnoDescription(failure))
    }
}
