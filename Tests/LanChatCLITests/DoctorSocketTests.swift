import ArgumentParser
import Testing

@testable import LanChatCLI

/// What `lanchat doctor` says about an odd control socket path (found by QA): a symbolic link
/// to the socket, a directory given by mistake, and a socket that --socket or LANCHAT_SOCKET
/// names, whose lanchatd the systemd user service is not.
@Suite struct DoctorSocketTests {
    typealias F = DoctorFixtures

    static let userService = "/run/user/1000/lanchat/lanchatd.sock"
    static let other = "/tmp/x/alice.sock"

    /// Facts of a daemon at `path`, which --socket named: not the user service's socket.
    func namedBySocketOption(_ path: String = other) -> DoctorFacts {
        var facts = F.healthy
        facts.socketPath = path
        facts.defaultSocketPath = Self.userService
        return facts
    }

    @Test func aLinkToTheSocketIsCheckedWhereItLeads() throws {
        var facts = namedBySocketOption("/tmp/x/ww/link.sock")
        facts.socketTarget = Self.other
        facts.socket = .present(
            mode: 0o600, owner: F.uid, directoryMode: 0o700, directoryOwner: F.uid)
        let socket = try #require(F.check("socket", facts))
        #expect(socket.outcome == .passed)
        #expect(
            socket.detail == "/tmp/x/ww/link.sock → /tmp/x/alice.sock (0600, in a 0700 "
                + "directory of yours)")
        // Its mode and directory are the socket's, so the fixes name them.
        facts.socket = .present(
            mode: 0o600, owner: F.uid, directoryMode: 0o777, directoryOwner: F.uid)
        #expect(F.check("socket", facts)?.fix == "chmod go-w /tmp/x")
        facts.socket = .present(
            mode: 0o644, owner: F.uid, directoryMode: 0o700, directoryOwner: F.uid)
        #expect(F.check("socket", facts)?.fix == "chmod 0600 /tmp/x/alice.sock")
    }

    /// `--socket /tmp/x/alice`, the daemon's data directory: a `mv` would move the identity
    /// key with it.
    @Test func aDirectoryIsNeverMovedAside() throws {
        var facts = namedBySocketOption("/tmp/x/alice")
        facts.socket = .directory
        let named = try #require(F.check("socket", facts))
        #expect(named.outcome == .failed)
        #expect(named.detail == "/tmp/x/alice is a directory, not the control socket")
        #expect(
            named.fix
                == "check --socket and LANCHAT_SOCKET: they must name the socket lanchatd "
                + "serves (the user service's is \(Self.userService))")
        // Where the default socket belongs: rmdir removes only an empty one.
        facts = F.healthy
        facts.socket = .directory
        let atDefault = try #require(F.check("socket", facts))
        #expect(atDefault.fix == "rmdir \(F.socketPath) && systemctl --user restart lanchatd")
        for result in [named, atDefault] {
            #expect(result.fix?.contains("mv ") == false)
        }
    }

    /// A file --socket names is the user's, not lanchat's debris: checked, not moved.
    @Test func aFileTheSocketOptionNamesIsNotMovedAside() {
        var facts = namedBySocketOption()
        facts.socket = .notASocket
        let result = F.check("socket", facts)
        #expect(result?.outcome == .failed)
        #expect(result?.fix?.hasPrefix("check --socket and LANCHAT_SOCKET") == true)
        #expect(result?.fix?.contains("mv ") == false)
    }

    /// `systemctl --user` acts on the daemon of the default socket: for another one every
    /// start and restart names the lanchatd that serves it instead.
    @Test func aSocketTheOptionNamesIsRestartedByTheDaemonThatServesIt() {
        let restart =
            "restart the lanchatd that serves /tmp/x/alice.sock; systemctl --user acts on the "
            + "one at \(Self.userService)"
        var facts = namedBySocketOption()
        facts.socket = .missing
        facts.status = .failure(.daemonNotRunning("lanchatd is not running"))
        var results = [F.check("socket", facts), F.check("daemon", facts)]
        #expect(
            results.map(\.?.fix)
                == Array(
                    repeating:
                        "start the lanchatd that serves /tmp/x/alice.sock (lanchatd --socket "
                        + "/tmp/x/alice.sock); systemctl --user acts on the one at "
                        + Self.userService, count: 2))
        facts = namedBySocketOption()
        facts.status = .failure(.notAnswering("lanchatd did not answer within 2 s"))
        results.append(F.check("daemon", facts))
        #expect(F.check("daemon", facts)?.fix == restart + ", and see its log")
        facts = namedBySocketOption()
        var status = F.status
        status.version = "0.0.9"
        facts.status = .success(status)
        results.append(F.check("version", facts))
        #expect(F.check("version", facts)?.fix == restart)
        facts = namedBySocketOption()
        facts.portProbes = [PortProbe(address: "[::1]:41000", failure: "connection refused")]
        results.append(F.check("port", facts))
        for result in results {
            #expect(result?.outcome == .failed)
            #expect(result?.fix?.contains("systemctl --user start") == false)
            #expect(result?.fix?.contains("systemctl --user restart") == false)
            #expect(result?.fix?.contains("journalctl") == false)
        }
        // The user service's own socket, or a link to it, keeps the systemctl fix.
        facts = namedBySocketOption("/tmp/link.sock")
        facts.socketTarget = Self.userService
        facts.status = .failure(.notAnswering("lanchatd did not answer within 2 s"))
        #expect(F.check("daemon", facts)?.fix?.hasPrefix("systemctl --user restart") == true)
    }

    /// Without a daemon nothing says whether mDNS is on (QA: a --no-mdns node whose daemon
    /// was down was told to start D-Bus and exited 1 for it): avahi-daemon and multicast are
    /// shown, not counted.
    @Test func withoutADaemonAvahiAndMulticastAreNotCountedAsFailed() throws {
        var facts = F.noDaemon
        facts.avahiBus = F.ran(
            status: 1, error: "Failed to connect to bus: No such file or directory")
        facts.addresses = F.ran("[]")
        let report = DoctorReport.evaluate(facts)
        #expect(report.checks.filter(\.isFailure).map(\.name) == ["socket", "daemon"])
        let avahi = try #require(F.check("avahi-daemon", facts))
        #expect(avahi.outcome == .skipped)
        #expect(avahi.detail.hasPrefix("unknown: the system D-Bus is not running"))
        #expect(avahi.detail.contains("matters only if lanchatd uses mDNS (not --no-mdns)"))
        #expect(
            avahi.detail.hasSuffix(
                "If it does: sudo systemctl start dbus && "
                    + "sudo systemctl enable --now avahi-daemon"))
        #expect(avahi.fix == nil)
        #expect(F.check("multicast", facts)?.outcome == .skipped)
        // A daemon that answers and uses mDNS still fails them.
        facts.status = F.healthy.status
        #expect(F.check("avahi-daemon", facts)?.outcome == .failed)
        #expect(F.check("multicast", facts)?.outcome == .failed)
    }

    /// `doctor --help` lists every check it runs (QA: it left out socket, version and data
    /// directory).
    @Test func theHelpListsEveryCheck() {
        let help = DoctorCommand.helpMessage(columns: 1000)
        for check in DoctorReport.checks {
            #expect(help.contains("\(check.name) ("), "doctor --help lacks \(check.name)")
        }
    }
}
