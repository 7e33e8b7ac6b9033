import LanChatControl
import Testing

@testable import LanChatCLI

/// Every check of `lanchat doctor` from facts: the healthy verdict, and each failure with the
/// fix it names. No real system is asked.
@Suite struct DoctorCheckTests {
    typealias F = DoctorFixtures

    func expectFailure(
        _ name: String, _ facts: DoctorFacts, fix: String, detail: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = F.check(name, facts)
        #expect(
            result?.outcome == .failed, "\(String(describing: result))",
            sourceLocation: sourceLocation)
        #expect(
            result?.fix?.contains(fix) == true, "fix: \(result?.fix ?? "none")",
            sourceLocation: sourceLocation)
        if let detail {
            #expect(
                result?.detail.contains(detail) == true, "detail: \(result?.detail ?? "")",
                sourceLocation: sourceLocation)
        }
    }

    func expectSkipped(
        _ name: String, _ facts: DoctorFacts, detail: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = F.check(name, facts)
        #expect(
            result?.outcome == .skipped, "\(String(describing: result))",
            sourceLocation: sourceLocation)
        #expect(
            result?.detail.contains(detail) == true, "detail: \(result?.detail ?? "")",
            sourceLocation: sourceLocation)
        #expect(result?.fix == nil, sourceLocation: sourceLocation)
    }

    @Test func aHealthyMachinePassesEveryCheck() {
        let report = DoctorReport.evaluate(F.healthy)
        #expect(
            report.checks.map(\.name) == [
                "socket", "daemon", "version", "configuration", "data directory", "avahi-daemon",
                "mdns record", "peers", "multicast", "port", "firewall", "systemd-resolved",
            ])
        for check in report.checks {
            #expect(check.outcome == .passed, "\(check.name): \(check.detail)")
            #expect(check.fix == nil)
        }
        #expect(report.ok)
        #expect(
            F.check("mdns record", F.healthy)?.detail
                == "published as 'alice@box (ALIC-EAAA)' on eth0 IPv4, eth0 IPv6")
        #expect(F.check("peers", F.healthy)?.detail == "1 online of 2 known")
        #expect(F.check("multicast", F.healthy)?.detail == "multicast on eth0")
        #expect(
            F.check("firewall", F.healthy)?.detail == "no nftables rule drops UDP 5353 or TCP 41000"
        )
    }

    // MARK: The daemon

    @Test func withoutADaemonItSaysHowToStartItAndSkipsWhatNeedsIt() {
        let report = DoctorReport.evaluate(F.noDaemon)
        #expect(!report.ok)
        expectFailure("socket", F.noDaemon, fix: "systemctl --user start lanchatd")
        expectFailure(
            "daemon", F.noDaemon, fix: "systemctl --user start lanchatd", detail: "not running")
        #expect(
            F.check("daemon", F.noDaemon)?.detail
                == "lanchatd is not running (no socket at \(F.socketPath))")
        for name in ["version", "configuration", "data directory", "mdns record", "peers", "port"] {
            expectSkipped(name, F.noDaemon, detail: "needs a running lanchatd")
        }
        // Another socket's start hint is said once, as the fix (found by QA: twice).
        var other = F.noDaemon
        other.status = .failure(
            .daemonNotRunning(
                "lanchatd is not running (nothing listens on /srv/l.sock); start the lanchatd "
                    + "that serves it (lanchatd --socket /srv/l.sock)"))
        #expect(
            F.check("daemon", other)?.detail
                == "lanchatd is not running (nothing listens on /srv/l.sock)")
        // What does not need the daemon still runs.
        for name in ["avahi-daemon", "multicast", "firewall", "systemd-resolved"] {
            #expect(F.check(name, F.noDaemon)?.outcome == .passed, "\(name)")
        }
    }

    @Test func aLooseSocketIsNamedWithTheChmodThatFixesIt() {
        var facts = F.healthy
        facts.socket = .present(
            mode: 0o666, owner: F.uid, directoryMode: 0o700, directoryOwner: F.uid)
        expectFailure(
            "socket", facts, fix: "chmod 0600 /run/user/1000/lanchat/lanchatd.sock",
            detail: "is 0666; it must be 0600")
        // A directory others may write to, without the sticky bit: they could replace it.
        facts.socket = .present(
            mode: 0o600, owner: F.uid, directoryMode: 0o775, directoryOwner: F.uid)
        expectFailure(
            "socket", facts, fix: "chmod go-w /run/user/1000/lanchat", detail: "0775")
    }

    /// The daemon's own rule: a directory of ours in any mode only we can write, or a sticky
    /// one such as /tmp (the README's `--socket /tmp/alice.sock`), even of another owner.
    @Test func aSocketInAReadableDirectoryOfOursOrInTmpPasses() {
        var facts = F.healthy
        facts.socket = .present(
            mode: 0o600, owner: F.uid, directoryMode: 0o755, directoryOwner: F.uid)
        #expect(F.check("socket", facts)?.outcome == .passed)
        facts.socket = .present(mode: 0o600, owner: F.uid, directoryMode: 0o1777, directoryOwner: 0)
        #expect(F.check("socket", facts)?.outcome == .passed)
        #expect(F.check("socket", facts)?.detail.contains("sticky") == true)
        // Someone else's directory without the sticky bit is not.
        facts.socket = .present(mode: 0o600, owner: F.uid, directoryMode: 0o755, directoryOwner: 0)
        expectFailure("socket", facts, fix: "LANCHAT_SOCKET", detail: "uid 0")
    }

    /// A full disk fails every send (exit 74) while everything else looks fine; a data
    /// directory we cannot write to stores nothing.
    @Test func aFullDiskOrAnUnwritableDataDirectoryFails() {
        var facts = F.healthy
        let path = "/home/u/.local/share/lanchat"
        facts.dataDirectory = DataDirectoryFacts(path: path, writable: true, freeBytes: 3 << 20)
        expectFailure("data directory", facts, fix: "df -h \(path)", detail: "3 MiB free")
        facts.dataDirectory = DataDirectoryFacts(path: path, writable: false, freeBytes: 1 << 40)
        expectFailure("data directory", facts, fix: "chmod 0700 \(path)", detail: "not writable")
        facts.dataDirectory = DataDirectoryFacts(path: path, writable: true, freeBytes: 20 << 30)
        #expect(F.check("data directory", facts)?.detail == "\(path) (20 GiB free)")
    }

    @Test func aSocketOfAnotherUserOrNotASocketFails() {
        var facts = F.healthy
        facts.socket = .present(mode: 0o600, owner: 0, directoryMode: 0o700, directoryOwner: 0)
        expectFailure("socket", facts, fix: "LANCHAT_SOCKET", detail: "uid 0")
        facts.socket = .notASocket
        expectFailure(
            "socket", facts,
            fix: "move the file aside: mv /run/user/1000/lanchat/lanchatd.sock "
                + "/run/user/1000/lanchat/lanchatd.sock.old && systemctl --user restart lanchatd")
    }

    @Test func aDaemonThatDoesNotAnswerIsRestarted() {
        var facts = F.healthy
        facts.status = .failure(.notAnswering("lanchatd did not answer within 2 s"))
        expectFailure(
            "daemon", facts, fix: "systemctl --user restart lanchatd", detail: "did not answer")
        facts.status = .failure(.permissionDenied("permission denied on the socket"))
        expectFailure("daemon", facts, fix: "as the user who runs lanchatd")
    }

    @Test func versionSkewAsksForARestartOfTheDaemon() {
        var facts = F.healthy
        var status = F.status
        status.version = "0.0.9"
        facts.status = .success(status)
        expectFailure(
            "version", facts, fix: "systemctl --user restart lanchatd", detail: "lanchatd 0.0.9")
        status.version = LanChatVersion.current
        status.apiVersion = ControlAPI.version + 1
        facts.status = .success(status)
        expectFailure(
            "version", facts, fix: "same release", detail: "control API \(ControlAPI.version + 1)")
    }

    /// A reload that failed keeps the running configuration: the file is not what runs.
    @Test func aFailedReloadIsAFailureWithTheReloadToRunAgain() {
        var facts = F.healthy
        var status = F.status
        status.reloadError =
            "/home/alice/.config/lanchat/lanchatd.conf:2: port: expected an integer"
        facts.status = .success(status)
        expectFailure(
            "configuration", facts,
            fix: "correct the file, then systemctl --user reload lanchatd",
            detail: "lanchatd.conf:2: port: expected an integer")
    }

    // MARK: Avahi and discovery

    @Test func avahiDaemonNotOnTheBusIsStarted() {
        var facts = F.healthy
        facts.avahiBus = F.ran(
            status: 1,
            error:
                "Call failed: The name org.freedesktop.Avahi was not provided by any .service files\n"
        )
        expectFailure(
            "avahi-daemon", facts, fix: "sudo systemctl enable --now avahi-daemon",
            detail: "not reachable on the system D-Bus (busctl: Call failed: The name")
        facts.avahiBus = F.ran(
            status: 1, error: "Failed to connect to bus: No such file or directory\n")
        expectFailure(
            "avahi-daemon", facts,
            fix: "sudo systemctl start dbus && sudo systemctl enable --now avahi-daemon",
            detail: "the system D-Bus is not running")
        facts.avahiBus = .ran(ToolOutput(status: 137, timedOut: true))
        expectFailure("avahi-daemon", facts, fix: "avahi-daemon", detail: "no answer within 2 s")
    }

    @Test func withoutBusctlAvahiDaemonCheckDecidesAndMissingToolsAreNamed() {
        var facts = F.healthy
        facts.avahiBus = .missing("busctl")
        facts.avahiCheck = F.ran()
        #expect(F.check("avahi-daemon", facts)?.outcome == .passed)
        #expect(F.check("avahi-daemon", facts)?.detail.contains("busctl is missing") == true)
        facts.avahiCheck = F.ran(status: 1)
        expectFailure(
            "avahi-daemon", facts, fix: "sudo systemctl enable --now avahi-daemon",
            detail: "not running")
        facts.avahiCheck = .missing("avahi-daemon")
        expectFailure(
            "avahi-daemon", facts, fix: "sudo apt install avahi-daemon",
            detail: "neither busctl nor avahi-daemon is installed")
    }

    @Test func anUnpublishedRecordNamesTheFixForWhyItIsMissing() {
        var facts = F.healthy
        let others = F.browseOutput.split(separator: "\n").filter { $0.contains("bob@laptop") }
        facts.browse = F.ran(others.joined(separator: "\n"))
        expectFailure(
            "mdns record", facts, fix: "systemctl --user restart lanchatd", detail: "ALIC-EAAA")
        var status = F.status
        status.avahi = "connecting"
        facts.status = .success(status)
        expectFailure(
            "mdns record", facts, fix: "sudo systemctl enable --now avahi-daemon",
            detail: "Avahi connecting")
        facts.browse = F.ran(
            status: 1, error: "Failed to create client object: Daemon not running\n")
        expectFailure("mdns record", facts, fix: "avahi-daemon", detail: "Daemon not running")
    }

    @Test func aBrowseCutShortStillCountsWhatItResolved() {
        var facts = F.healthy
        facts.browse = .ran(ToolOutput(status: 137, standardOutput: F.browseOutput, timedOut: true))
        #expect(F.check("mdns record", facts)?.outcome == .passed)
    }

    @Test func theRecordCheckIsSkippedWithNoMDNSOrWithoutAvahiBrowse() {
        var facts = F.healthy
        facts.browse = .missing("avahi-browse")
        expectSkipped("mdns record", facts, detail: "sudo apt install avahi-utils")
        var status = F.status
        status.avahi = "disabled"
        facts.status = .success(status)
        expectSkipped("mdns record", facts, detail: "--no-mdns")
    }

    /// With --no-mdns neither avahi-daemon nor multicast is needed: a machine without them
    /// is not failing, and the report says why they were not checked.
    @Test func avahiAndMulticastAreSkippedWithNoMDNS() {
        var facts = F.healthy
        facts.avahiBus = .missing("busctl")
        facts.addresses = .ran(ToolOutput(status: 0, standardOutput: "[]"))
        #expect(F.check("avahi-daemon", facts)?.outcome == .failed)
        var status = F.status
        status.avahi = "disabled"
        facts.status = .success(status)
        expectSkipped("avahi-daemon", facts, detail: "--no-mdns")
        expectSkipped("multicast", facts, detail: "--no-mdns")
    }

    @Test func noPeerOnlineSuggestsStaticPeers() {
        var facts = F.healthy
        facts.peers = .success([])
        expectFailure(
            "peers", facts, fix: "lanchatd --peer HOST:PORT",
            detail: "no other lanchat node seen yet")
        facts.peers = .success([CLIFixtures.carol])
        expectFailure(
            "peers", facts, fix: "--peer HOST:PORT", detail: "none of the 1 known peers is online")
    }

    // MARK: The network

    @Test func multicastOffOrNoCarrierIsNamedWithItsFix() throws {
        var facts = F.healthy
        facts.addresses = F.ran(F.ipAddr.replacing("\"MULTICAST\",", with: ""))
        expectFailure(
            "multicast", facts, fix: "sudo ip link set dev eth0 multicast on",
            detail: "multicast off")
        facts.addresses = F.ran(
            F.ipAddr.replacing("\"UP\",\"LOWER_UP\"]}]", with: "\"UP\"]}]")
                .replacing("\"MULTICAST\",\"UP\",\"LOWER_UP\"]", with: "\"MULTICAST\",\"UP\"]"))
        expectFailure("multicast", facts, fix: "nmcli device connect eth0", detail: "no carrier")
        facts.addresses = F.ran(
            #"[{"ifname":"lo","flags":["LOOPBACK","UP","LOWER_UP"],"addr_info":[{}]},"#
                + #"{"ifname":"eth0","flags":["BROADCAST","MULTICAST"],"addr_info":[]}]"#)
        expectFailure(
            "multicast", facts, fix: "sudo ip link set dev eth0 up", detail: "no network interface")
        facts.addresses = .missing("ip")
        expectSkipped("multicast", facts, detail: "iproute2")
    }

    @Test func aPortNobodyAcceptsOnIsRestarted() {
        var facts = F.healthy
        facts.portProbes = [
            PortProbe(address: "[::1]:41000", failure: "connection refused"),
            PortProbe(address: "127.0.0.1:41000", failure: "connection refused"),
        ]
        expectFailure(
            "port", facts, fix: "systemctl --user restart lanchatd",
            detail: "[::1]:41000: connection refused, 127.0.0.1:41000: connection refused")
        facts.portProbes = []
        expectFailure(
            "port", facts, fix: "systemctl --user restart lanchatd", detail: "no listening port")
    }

    @Test func listeningAddressesAreProbedOnLoopbackOrWhereTheyAre() {
        typealias T = ListeningAddress.Target
        #expect(
            ListeningAddress.targets(["[IPv6]::/:::41000"]) == [
                T(host: "::1", port: 41000), T(host: "127.0.0.1", port: 41000),
            ])
        #expect(ListeningAddress.targets(["0.0.0.0:41000"]) == [T(host: "127.0.0.1", port: 41000)])
        #expect(
            ListeningAddress.targets(["[IPv4]169.254.0.1/169.254.0.1:7000"]) == [
                T(host: "169.254.0.1", port: 7000)
            ])
        #expect(
            ListeningAddress.targets(["[fe80::1%eth0]:7000", "nonsense", "::?"]) == [
                T(host: "fe80::1%eth0", port: 7000)
            ])
        #expect(T(host: "::1", port: 41000).display == "[::1]:41000")
    }

    @Test func anNftRuleDroppingMDNSIsNamedWithTheCommandThatDeletesIt() {
        var facts = F.healthy
        // nft add table inet t; nft add chain inet t in '{ type filter hook input priority 0; }'
        // nft add rule inet t in udp dport 5353 drop
        facts.ruleset = F.ran(
            """
            {"nftables":[{"metainfo":{"version":"1.0.6"}},{"table":{"family":"inet","name":"t","handle":3}},\
            {"chain":{"family":"inet","table":"t","name":"in","handle":1,"type":"filter","hook":"input","prio":0,"policy":"accept"}},\
            {"rule":{"family":"inet","table":"t","chain":"in","handle":2,"expr":[{"match":{"op":"==",\
            "left":{"payload":{"protocol":"udp","field":"dport"}},"right":5353}},{"drop":null}]}}]}
            """)
        expectFailure(
            "firewall", facts, fix: "sudo nft delete rule inet t in handle 2",
            detail: "rule 2 of inet t in drops UDP 5353")
    }

    @Test func rejectRulesSetsRangesAndOurTCPPortAreFound() {
        var facts = F.healthy
        facts.ruleset = F.ran(
            """
            {"nftables":[{"chain":{"family":"ip","table":"f","name":"in","hook":"input","policy":"accept"}},\
            {"rule":{"family":"ip","table":"f","chain":"in","handle":7,"expr":[{"match":{"op":"==",\
            "left":{"payload":{"protocol":"th","field":"dport"}},"right":{"set":[53,{"range":[5000,6000]}]}}},\
            {"reject":null}]}},\
            {"rule":{"family":"ip","table":"f","chain":"in","handle":8,"expr":[{"match":{"op":"==",\
            "left":{"payload":{"protocol":"tcp","field":"dport"}},"right":41000}},{"drop":null}]}}]}
            """)
        expectFailure(
            "firewall", facts,
            fix: "sudo nft delete rule ip f in handle 7 && sudo nft delete rule ip f in handle 8",
            detail: "rule 7 of ip f in rejects UDP 5353; rule 8 of ip f in drops TCP 41000")
    }

    @Test func outgoingChainsAndOtherPortsAreNotProblems() {
        var facts = F.healthy
        facts.ruleset = F.ran(
            """
            {"nftables":[{"chain":{"family":"inet","table":"f","name":"out","hook":"output","policy":"accept"}},\
            {"rule":{"family":"inet","table":"f","chain":"out","handle":3,"expr":[{"match":{"op":"==",\
            "left":{"payload":{"protocol":"udp","field":"dport"}},"right":5353}},{"drop":null}]}},\
            {"chain":{"family":"inet","table":"f","name":"in","hook":"input","policy":"accept"}},\
            {"rule":{"family":"inet","table":"f","chain":"in","handle":4,"expr":[{"match":{"op":"==",\
            "left":{"payload":{"protocol":"udp","field":"dport"}},"right":53}},{"drop":null}]}}]}
            """)
        #expect(F.check("firewall", facts)?.outcome == .passed)
    }

    @Test func aDropPolicyWithoutAnAcceptRuleIsNamed() {
        var facts = F.healthy
        facts.ruleset = F.ran(
            """
            {"nftables":[{"chain":{"family":"inet","table":"filter","name":"input","hook":"input","policy":"drop"}},\
            {"rule":{"family":"inet","table":"filter","chain":"input","handle":5,"expr":[{"match":{"op":"==",\
            "left":{"payload":{"protocol":"udp","field":"dport"}},"right":5353}},{"accept":null}]}}]}
            """)
        expectFailure(
            "firewall", facts, fix: "sudo nft insert rule inet filter input tcp dport 41000 accept",
            detail: "inet filter input drops by default and no rule accepts TCP 41000")
        #expect(F.check("firewall", facts)?.detail.contains("UDP 5353") == false)
    }

    @Test func anUnreadableRulesetIsNotAFailure() {
        var facts = F.healthy
        facts.ruleset = F.ran(status: 1, error: "Error: Operation not permitted\n")
        expectSkipped("firewall", facts, detail: "cannot read the ruleset (run as root to check)")
        facts.ruleset = .missing("nft")
        expectSkipped("firewall", facts, detail: "nft is not installed")
    }

    @Test func resolvedAnsweringMDNSCompetesWithAvahi() {
        var facts = F.healthy
        facts.resolvectl = F.ran("Global: yes\nLink 2 (eth0): yes\nLink 3 (wlan0): no\n")
        expectFailure(
            "systemd-resolved", facts, fix: "MulticastDNS=no", detail: "answers mDNS itself on eth0"
        )
        facts.resolvectl = F.ran("Global: yes\nLink 2 (eth0): resolve\n")
        #expect(F.check("systemd-resolved", facts)?.outcome == .passed)
        facts.resolvectl = F.ran(
            status: 1,
            error:
                "Failed to get global data: Unit dbus-org.freedesktop.resolve1.service not found.\n"
        )
        #expect(F.check("systemd-resolved", facts)?.detail == "not running")
    }

    @Test func withoutResolvectlResolvedConfDecides() {
        var facts = F.healthy
        facts.resolvectl = .missing("resolvectl")
        facts.resolvedConfMulticastDNS = ResolvedCheck.multicastDNS(in: [
            "[Resolve]\n#MulticastDNS=no\nMulticastDNS=no\n", "[Resolve]\nMulticastDNS = yes\n",
        ])
        expectFailure(
            "systemd-resolved", facts, fix: "systemctl restart systemd-resolved",
            detail: "MulticastDNS=yes")
        facts.resolvedConfMulticastDNS = nil
        #expect(F.check("systemd-resolved", facts)?.outcome == .passed)
    }

    // MARK: Parsers

    @Test func avahiBrowseRowsAreUnescapedAndTheirTXTSplit() {
        let rows = AvahiBrowseRow.parse(
            #"=;eth0;IPv4;Al\195\169 \\\059x\032\040AB;_lanchat._tcp;local;h.local;10.0.0.1;7;"a=1" "msg=say "hi" now" "b=""#
                + "\n+;eth0;IPv4;x;_lanchat._tcp;local\nbroken;line\n")
        #expect(rows.count == 1)
        #expect(rows.first?.instance == "Alé \\;x (AB")
        #expect(rows.first?.txt == ["a=1", "msg=say \"hi\" now", "b="])
        #expect(AvahiCheck.version("s \"avahi 0.8\"\n") == "avahi 0.8")
    }
}
