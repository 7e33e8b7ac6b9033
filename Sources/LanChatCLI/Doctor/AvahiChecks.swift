import LanChatControl

/// avahi-daemon answers on the system D-Bus, which is how lanchatd publishes and browses.
/// Asked with busctl; where busctl is missing, with `avahi-daemon --check`.
struct AvahiCheck: DoctorCheck {
    let name = "avahi-daemon"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        if facts.daemon?.avahi == "disabled" {
            return .skipped(name, "not used: the daemon runs with --no-mdns")
        }
        return judgedOnlyWithMDNS(verdict(facts), facts)
    }

    private func verdict(_ facts: DoctorFacts) -> DoctorCheckResult {
        if let problem = facts.systemBusProblem {
            return .failed(name, problem, fix: DoctorFix.startDBusAndAvahi)
        }
        if case .ran(let output) = facts.avahiBus {
            guard output.succeeded else {
                let why = output.timedOut ? "no answer within 2 s" : output.firstErrorLine
                return .failed(
                    name, "not reachable on the system D-Bus (busctl: \(why))",
                    fix: DoctorFix.startAvahi)
            }
            return .passed(
                name, "\(Self.version(output.standardOutput)) answers on the system D-Bus")
        }
        switch facts.avahiCheck {
        case .ran(let output) where output.succeeded:
            return .passed(name, "running (avahi-daemon --check; busctl is missing)")
        case .ran:
            return .failed(
                name, "not running (avahi-daemon --check; busctl is missing)",
                fix: DoctorFix.startAvahi)
        case .missing, nil:
            return .failed(
                name, "neither busctl nor avahi-daemon is installed",
                fix: "\(DoctorFix.installAvahi) && \(DoctorFix.startAvahi)")
        }
    }

    /// `s "avahi 0.8"` → `avahi 0.8`.
    static func version(_ reply: String) -> String {
        let strings = AvahiBrowseRow.quotedStrings(trimmed(reply))
        return strings.first.map { $0.isEmpty ? "avahi-daemon" : $0 } ?? "avahi-daemon"
    }
}

/// Our own `_lanchat._tcp` record is on the LAN: a one-shot browse finds a record whose TXT
/// `id` is this node's id (PROTOCOL.md §10).
struct RecordCheck: DoctorCheck {
    let name = "mdns record"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        guard let status = facts.daemon else { return skippedWithoutDaemon(name) }
        if status.avahi == "disabled" {
            return .skipped(name, "mDNS is off (--no-mdns): peers come from --peer")
        }
        if let problem = facts.systemBusProblem {
            // lanchatd retries Avahi every 10 s at most: no restart once the bus is back.
            return .failed(
                name,
                "\(problem): lanchatd can neither publish nor browse _lanchat._tcp (it "
                    + "reports Avahi \(status.avahi))",
                fix: "\(DoctorFix.startDBusAndAvahi); lanchatd then reconnects to Avahi by itself")
        }
        guard let browse = facts.browse else {
            return .skipped(name, "not browsed")
        }
        guard case .ran(let output) = browse else {
            return .skipped(
                name, "avahi-browse is missing; to check, install it: sudo apt install avahi-utils")
        }
        let rows = AvahiBrowseRow.parse(output.standardOutput)
            .filter { $0.txt.contains("id=\(status.id)") }
        if let first = rows.first {
            let interfaces = Set(rows.map { "\($0.interface) \($0.family)" }).sorted()
            return .passed(
                name,
                "published as '\(first.instance)' on \(interfaces.joined(separator: ", "))")
        }
        let notFound = "no _lanchat._tcp record with this node's id (\(status.keyTag)) on the LAN"
        if !output.succeeded && !output.timedOut {
            return .failed(
                name, "cannot browse _lanchat._tcp (avahi-browse: \(output.firstErrorLine))",
                fix: DoctorFix.startAvahi)
        }
        if status.avahi != "running" {
            return .failed(
                name, "\(notFound); lanchatd reports Avahi \(status.avahi)",
                fix: status.avahi == "connecting"
                    ? DoctorFix.startAvahi
                    : DoctorFix.restartDaemonAndLog(facts))
        }
        return .failed(
            name, notFound,
            fix: DoctorFix.restartDaemonAndLog(facts))
    }
}

/// Other lanchat nodes are known and online (`who --all`).
struct PeersCheck: DoctorCheck {
    let name = "peers"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        guard facts.daemon != nil, let answer = facts.peers else {
            return skippedWithoutDaemon(name)
        }
        let peers: [PeerInfo]
        switch answer {
        case .success(let list): peers = list
        case .failure(let error):
            return .failed(
                name, "lanchatd did not answer who: \(error.message)",
                fix: DoctorFix.restartDaemonAndLog(facts))
        }
        let online = peers.filter { $0.presence == .online }.count
        if online > 0 {
            return .passed(name, "\(online) online of \(peers.count) known")
        }
        let fix =
            "check that the others run lanchatd and that the checks above pass; where "
            + "multicast does not pass: \(DoctorFix.staticPeer)"
        if peers.isEmpty {
            return .failed(name, "no other lanchat node seen yet", fix: fix)
        }
        return .failed(name, "none of the \(peers.count) known peers is online", fix: fix)
    }
}
