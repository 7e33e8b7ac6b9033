import Glibc

/// Where libavahi-client finds the system D-Bus, to tell "no bus" from "no avahi-daemon":
/// both reach us as a client that cannot be made.
enum SystemBus {
    static let socketPath = "/run/dbus/system_bus_socket"

    /// True when the bus is certainly not there: its default socket is absent and no
    /// `DBUS_SYSTEM_BUS_ADDRESS` names another (then we cannot tell, and say nothing).
    static func isMissing(
        environment: [String: String]? = nil, exists: (String) -> Bool = SystemBus.exists
    ) -> Bool {
        let address: String? =
            if let environment {
                environment["DBUS_SYSTEM_BUS_ADDRESS"]
            } else {
                getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
            }
        guard address?.isEmpty ?? true else { return false }
        return !exists(socketPath) && !exists("/var" + socketPath)
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }
}
