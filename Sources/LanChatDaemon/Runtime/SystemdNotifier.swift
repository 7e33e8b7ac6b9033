import Glibc

/// sd_notify(3) without libsystemd: datagrams to `$NOTIFY_SOCKET` (`READY=1`, `STATUS=…`,
/// `WATCHDOG=1`, `STOPPING=1`). Does nothing when not started by systemd.
struct SystemdNotifier: Sendable {
    let socketPath: String?

    init(environment: [String: String]) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var isActive: Bool { socketPath != nil }

    func notify(_ state: String) {
        guard let socketPath else { return }
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        // '@' names a socket in the abstract namespace: a leading NUL byte.
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let message = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes { bytes in
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, socketAddress, length)
                }
            }
        }
    }

    /// Half of `WATCHDOG_USEC`, when systemd asked for watchdog pings.
    static func watchdogInterval(environment: [String: String]) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let micros = Int64(text), micros > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"], let owner = Int32(pid), owner != getpid() {
            return nil
        }
        return .microseconds(micros / 2)
    }
}
