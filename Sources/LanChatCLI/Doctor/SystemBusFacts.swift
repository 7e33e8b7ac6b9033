/// The system D-Bus, through which lanchatd and avahi-browse reach avahi-daemon. Without it
/// no Avahi advice helps until the bus runs again (QA: with no bus, `lanchat status` showed
/// Avahi "failed" and the mdns record check never named D-Bus).
package enum SystemBusFacts: Sendable, Hashable {
    case accepting
    /// Nothing at the bus's socket path.
    case missing(path: String)
    /// A socket file is there but a connection fails: a dbus-daemon that died left it.
    case refusing(path: String, reason: String)
}

extension DoctorFacts {
    /// Why Avahi cannot be reached through the system D-Bus, nil when the bus runs: its
    /// socket missing or refusing, or busctl failing to connect to it (a bus elsewhere).
    var systemBusProblem: String? {
        switch systemBus {
        case .missing(let path):
            return "the system D-Bus is not running (no \(path))"
        case .refusing(let path, let reason):
            return "the system D-Bus is not running (\(path): \(reason))"
        case .accepting:
            guard case .ran(let output) = avahiBus, !output.succeeded,
                output.firstErrorLine.hasPrefix("Failed to connect to bus")
            else { return nil }
            return "the system D-Bus is not running (busctl: \(output.firstErrorLine))"
        }
    }
}
