import LanChatClient

/// One check of `lanchat doctor`: a pure function from the facts gathered once
/// (`DoctorFacts`) to a verdict. Gathering is the only part that touches the system
/// (`DoctorGathering`), so every check is unit-tested by feeding it facts.
protocol DoctorCheck: Sendable {
    /// The short name shown in the first column and in `--json` (`socket`, `avahi-daemon`, …).
    var name: String { get }
    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult
}

/// The verdict of one check.
package struct DoctorCheckResult: Sendable, Hashable {
    package enum Outcome: Sendable, Hashable {
        case passed
        /// Something is wrong; `fix` says what to run.
        case failed
        /// The check could not run (no daemon to ask, a tool missing, no permission to read
        /// the firewall). Not a failure: `detail` says why and what would let it run.
        case skipped
    }

    package var name: String
    package var outcome: Outcome
    package var detail: String
    /// The command that fixes a failure; nil for a pass or a skip.
    package var fix: String?

    package static func passed(_ name: String, _ detail: String) -> Self {
        Self(name: name, outcome: .passed, detail: detail, fix: nil)
    }

    package static func failed(_ name: String, _ detail: String, fix: String) -> Self {
        Self(name: name, outcome: .failed, detail: detail, fix: fix)
    }

    package static func skipped(_ name: String, _ detail: String) -> Self {
        Self(name: name, outcome: .skipped, detail: detail, fix: nil)
    }

    package var isFailure: Bool { outcome == .failed }
}

/// What the doctor says about the whole system: every check, in a fixed order.
package struct DoctorReport: Sendable, Hashable {
    package var checks: [DoctorCheckResult]

    /// True when no check failed (a skipped check is not a failure).
    package var ok: Bool { !checks.contains(where: \.isFailure) }

    /// Every check, in the order `lanchat doctor` prints them: the daemon first (most of
    /// the rest asks it), then Avahi and discovery, then the network underneath.
    static let checks: [any DoctorCheck] = [
        SocketCheck(), DaemonCheck(), VersionCheck(), ConfigurationCheck(), DataDirectoryCheck(),
        AvahiCheck(),
        RecordCheck(),
        PeersCheck(), MulticastCheck(), PortCheck(), FirewallCheck(), ResolvedCheck(),
    ]

    package static func evaluate(_ facts: DoctorFacts) -> DoctorReport {
        DoctorReport(checks: checks.map { $0.evaluate(facts) })
    }
}

/// The fixes more than one check gives, spelled once.
enum DoctorFix {
    static let startAvahi = "sudo systemctl enable --now avahi-daemon"
    /// avahi-daemon needs the system bus: starting it first would fail.
    static let startDBusAndAvahi = "sudo systemctl start dbus && \(startAvahi)"
    static let installAvahi = "sudo apt install avahi-daemon"
    static let staticPeer =
        "lanchatd --peer HOST:PORT (or peer = [\"HOST:PORT\"] in lanchatd.conf)"

    /// `systemctl --user` for the user service's socket. A socket that --socket or
    /// LANCHAT_SOCKET names is served by a lanchatd started some other way, which the user
    /// service is not: restarting it would leave the one asked about as it was (found by QA).
    static func startDaemon(_ facts: DoctorFacts) -> String {
        if facts.usesDefaultSocket { return "systemctl --user start lanchatd" }
        let socket = shellQuoted(facts.socketPath)
        return "start the lanchatd that serves \(socket) (lanchatd --socket \(socket)); "
            + userServiceServes(facts)
    }

    static func restartDaemon(_ facts: DoctorFacts) -> String {
        if facts.usesDefaultSocket { return "systemctl --user restart lanchatd" }
        return "restart the lanchatd that serves \(shellQuoted(facts.socketPath)); "
            + userServiceServes(facts)
    }

    /// A restart, and where to read why the daemon went wrong.
    static func restartDaemonAndLog(_ facts: DoctorFacts) -> String {
        facts.usesDefaultSocket
            ? "\(restartDaemon(facts)) (and see journalctl --user -u lanchatd)"
            : "\(restartDaemon(facts)), and see its log"
    }

    /// For a --socket or LANCHAT_SOCKET that names something other than a socket.
    static func checkSocketOption(_ facts: DoctorFacts) -> String {
        "check --socket and LANCHAT_SOCKET: they must name the socket lanchatd serves (the "
            + "user service's is \(shellQuoted(facts.defaultSocketPath)))"
    }

    private static func userServiceServes(_ facts: DoctorFacts) -> String {
        "systemctl --user acts on the one at \(shellQuoted(facts.defaultSocketPath))"
    }
}

/// The note of a check that needs the daemon when it did not answer.
func skippedWithoutDaemon(_ name: String) -> DoctorCheckResult {
    .skipped(name, "skipped: needs a running lanchatd (see the daemon check)")
}

/// The verdict of a check only mDNS needs (avahi-daemon, multicast). Without a daemon to say
/// whether it runs with --no-mdns, a failure is not counted against this node (QA: a
/// --no-mdns node whose daemon was down was told to start D-Bus, and exited 1 for it): it is
/// shown as not judged, with the fix for a node that does use mDNS.
func judgedOnlyWithMDNS(_ result: DoctorCheckResult, _ facts: DoctorFacts) -> DoctorCheckResult {
    guard result.isFailure, facts.daemon == nil else { return result }
    let fix = result.fix.map { " If it does: \($0)" } ?? ""
    return .skipped(
        result.name,
        "unknown: \(result.detail). This matters only if lanchatd uses mDNS (not --no-mdns), "
            + "which only a running lanchatd can tell.\(fix)")
}
