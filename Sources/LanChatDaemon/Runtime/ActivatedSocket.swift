import Glibc

/// The control socket systemd passed by socket activation (`systemd/lanchatd.socket`,
/// sd_listen_fds(3)): `LISTEN_PID` is ours and `LISTEN_FDS` ≥ 1, so fd 3 is a listening Unix
/// stream socket. Anything else in those variables is not for us and is ignored: the daemon
/// then binds its socket itself as usual.
public struct ActivatedSocket: Sendable {
    /// `SD_LISTEN_FDS_START`.
    static let firstDescriptor: Int32 = 3

    let descriptor: Int32

    /// The path the socket is bound to (the unit's `ListenStream=`), which `status` and the
    /// ready line report: `--socket` names no socket when systemd passed one. Nil for an
    /// abstract or unnamed socket.
    var path: String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(descriptor, $0, &length) == 0
            }
        }
        guard named else { return nil }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        guard Int(length) > pathOffset else { return nil }
        let path = withUnsafeBytes(of: &address.sun_path) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }

    /// The passed socket, if there is one for this process. The variables are removed either
    /// way (sd_listen_fds' `unset_environment`), so no child process inherits them.
    public static func take(environment: [String: String]) -> ActivatedSocket? {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1,
            isListeningUnixStream(firstDescriptor)
        else { return nil }
        // Never handed to a child process.
        _ = fcntl(firstDescriptor, F_SETFD, FD_CLOEXEC)
        return ActivatedSocket(descriptor: firstDescriptor)
    }

    private static func isListeningUnixStream(_ fd: Int32) -> Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        return option(SO_DOMAIN) == AF_UNIX && option(SO_TYPE) == Int32(SOCK_STREAM.rawValue)
            && option(SO_ACCEPTCONN) == 1
    }
}
