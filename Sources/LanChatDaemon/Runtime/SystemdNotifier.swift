import Glibc
import LanChatControl

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
        guard let address = UnixSocketAddress(path: socketPath, abstractMarker: true) else {
            return
        }
        let message = Array(state.utf8)
        _ = address.withSockaddr { socketAddress, length in
            message.withUnsafeBytes { bytes in
                sendto(descriptor, bytes.baseAddress, bytes.count, 0, socketAddress, length)
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
