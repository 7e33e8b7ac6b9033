import Testing

@testable import LanChatCLI

#if canImport(Glibc)
    import Glibc
#endif

/// Without a system D-Bus, Avahi cannot be reached however it runs (QA: `lanchat status`
/// showed Avahi "failed" and the mdns record fix never named D-Bus). The avahi-daemon and
/// mdns record checks say so, and start the bus before any Avahi advice.
@Suite(.timeLimit(.minutes(1))) struct DoctorSystemBusTests {
    typealias F = DoctorFixtures

    static let bus = "/run/dbus/system_bus_socket"
    static let startBus = "sudo systemctl start dbus && sudo systemctl enable --now avahi-daemon"

    /// The daemon runs, reports Avahi failed, and the bus is `bus`.
    func withoutBus(_ bus: SystemBusFacts = .missing(path: bus)) -> DoctorFacts {
        var facts = F.healthy
        var status = F.status
        status.avahi = "failed"
        facts.status = .success(status)
        facts.systemBus = bus
        facts.avahiBus = F.ran(
            status: 1, error: "Failed to connect to bus: No such file or directory")
        facts.browse = F.ran(status: 1, error: "Failed to create client object: Daemon not running")
        return facts
    }

    @Test func aMissingBusIsNamedBeforeAnyAvahiAdvice() {
        let facts = withoutBus()
        let avahi = F.check("avahi-daemon", facts)
        #expect(avahi?.outcome == .failed)
        #expect(avahi?.detail == "the system D-Bus is not running (no \(Self.bus))")
        #expect(avahi?.fix == Self.startBus)
        let record = F.check("mdns record", facts)
        #expect(record?.outcome == .failed)
        #expect(
            record?.detail
                == "the system D-Bus is not running (no \(Self.bus)): lanchatd can neither "
                + "publish nor browse _lanchat._tcp (it reports Avahi failed)")
        #expect(record?.fix == Self.startBus + "; lanchatd then reconnects to Avahi by itself")
    }

    /// A socket file a dead dbus-daemon left behind.
    @Test func aRefusingBusIsNamedWithWhy() {
        let facts = withoutBus(.refusing(path: Self.bus, reason: "Connection refused"))
        #expect(
            F.check("avahi-daemon", facts)?.detail
                == "the system D-Bus is not running (\(Self.bus): Connection refused)")
        #expect(F.check("mdns record", facts)?.fix?.hasPrefix(Self.startBus) == true)
    }

    /// The bus socket accepts, yet busctl cannot connect (a bus at another address): still
    /// the bus, as busctl says.
    @Test func busctlFailingToConnectStillNamesTheBus() {
        let facts = withoutBus(.accepting)
        #expect(
            F.check("avahi-daemon", facts)?.detail
                == "the system D-Bus is not running (busctl: Failed to connect to bus: No such "
                + "file or directory)")
        #expect(F.check("mdns record", facts)?.fix?.hasPrefix(Self.startBus) == true)
    }

    /// --no-mdns needs no bus; without a daemon to tell, the advice is shown, not counted.
    @Test func noMDNSAndNoDaemonAreNotFailedForTheBus() {
        var facts = withoutBus()
        var status = F.status
        status.avahi = "disabled"
        facts.status = .success(status)
        #expect(F.check("avahi-daemon", facts)?.outcome == .skipped)
        #expect(F.check("mdns record", facts)?.outcome == .skipped)
        facts = F.noDaemon
        facts.systemBus = .missing(path: Self.bus)
        let avahi = F.check("avahi-daemon", facts)
        #expect(avahi?.outcome == .skipped)
        #expect(avahi?.detail.hasSuffix("If it does: \(Self.startBus)") == true)
    }

    /// A bus that runs leaves the Avahi advice as it was.
    @Test func aRunningBusLeavesTheAvahiAdvice() {
        var facts = F.healthy
        facts.avahiBus = F.ran(
            status: 1, error: "Call failed: The name org.freedesktop.Avahi was not provided")
        #expect(F.check("avahi-daemon", facts)?.fix == "sudo systemctl enable --now avahi-daemon")
    }

    /// The probe on real sockets: none, one bound but not listening (what a dead bus
    /// leaves), one listening.
    @Test func theProbeTellsAMissingARefusingAndAListeningBus() throws {
        let directory = try TemporaryDirectory.make()
        let path = directory + "/system_bus_socket"
        defer { rmdir(directory) }
        #expect(SystemBusProbe.probe(path) == .missing(path: path))
        let dead = try UnixListener.bound(path: path)
        #expect(SystemBusProbe.probe(path) == .refusing(path: path, reason: "Connection refused"))
        close(dead)
        unlink(path)
        let live = try UnixListener.listen(path: path)
        defer {
            close(live)
            unlink(path)
        }
        #expect(SystemBusProbe.probe(path) == .accepting)
    }
}
