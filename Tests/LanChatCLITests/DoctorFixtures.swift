import LanChatControl

@testable import LanChatCLI

/// Facts of a healthy machine for the doctor's checks; each test changes one thing.
enum DoctorFixtures {
    static let uid: UInt32 = 1000
    static let socketPath = "/run/user/1000/lanchat/lanchatd.sock"

    static var status: StatusResult {
        var status = CLIFixtures.status
        status.version = LanChatVersion.current
        status.apiVersion = ControlAPI.version
        status.avahi = "running"
        status.listening = ["[IPv6]::/:::41000"]
        return status
    }

    static func ran(_ output: String = "", status: Int32 = 0, error: String = "") -> ToolRun {
        .ran(ToolOutput(status: status, standardOutput: output, standardError: error))
    }

    /// What `avahi-browse -t -r -p -k _lanchat._tcp` prints when our record is published.
    static var browseOutput: String {
        let id = status.id
        return """
            +;eth0;IPv4;alice@box\\032\\040ALIC-EAAA\\041;_lanchat._tcp;local
            =;eth0;IPv4;alice@box\\032\\040ALIC-EAAA\\041;_lanchat._tcp;local;box.local;192.168.1.20;41000;"txtvers=1" "v=1" "id=\(id)" "status=busy"
            =;eth0;IPv6;alice@box\\032\\040ALIC-EAAA\\041;_lanchat._tcp;local;box.local;fe80::1;41000;"txtvers=1" "v=1" "id=\(id)" "status=busy"
            =;eth0;IPv4;bob@laptop\\032\\040BOBB-2345\\041;_lanchat._tcp;local;laptop.local;192.168.1.21;41000;"txtvers=1" "v=1" "id=\(CLIFixtures.bobID)"

            """
    }

    /// `ip -j addr` with loopback and an eth0 that is up with multicast and an address.
    static let ipAddr = """
        [{"ifindex":1,"ifname":"lo","flags":["LOOPBACK","UP","LOWER_UP"],"mtu":65536,\
        "operstate":"UNKNOWN","addr_info":[{"family":"inet","local":"127.0.0.1","prefixlen":8}]},\
        {"ifindex":2,"ifname":"eth0","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],\
        "mtu":1500,"operstate":"UP","addr_info":[{"family":"inet","local":"192.168.1.20",\
        "prefixlen":24}]}]
        """

    /// `nft -j list ruleset` with an input chain that accepts everything.
    static let openRuleset = """
        {"nftables":[{"metainfo":{"version":"1.0.6","json_schema_version":1}},\
        {"table":{"family":"inet","name":"filter","handle":1}},\
        {"chain":{"family":"inet","table":"filter","name":"input","handle":1,"type":"filter",\
        "hook":"input","prio":0,"policy":"accept"}},\
        {"rule":{"family":"inet","table":"filter","chain":"input","handle":2,"expr":[\
        {"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"dport"}},"right":22}},\
        {"accept":null}]}}]}
        """

    static var healthy: DoctorFacts {
        DoctorFacts(
            uid: uid, socketPath: socketPath,
            socket: .present(mode: 0o600, owner: uid, directoryMode: 0o700, directoryOwner: uid),
            status: .success(status), peers: .success([CLIFixtures.bob, CLIFixtures.carol]),
            avahiBus: ran("s \"avahi 0.8\"\n"), browse: ran(browseOutput),
            addresses: ran(ipAddr),
            portProbes: [PortProbe(address: "[::1]:41000")],
            ruleset: ran(openRuleset),
            resolvectl: ran("Global: no\nLink 2 (eth0): no\n"),
            dataDirectory: DataDirectoryFacts(
                path: "/home/u/.local/share/lanchat", writable: true, freeBytes: 20 << 30))
    }

    /// Facts of a machine where lanchatd is not running.
    static var noDaemon: DoctorFacts {
        var facts = healthy
        facts.socket = .missing
        facts.status = .failure(
            .daemonNotRunning(
                "lanchatd is not running (no socket at \(socketPath)); start it with: "
                    + "systemctl --user start lanchatd"))
        facts.peers = nil
        facts.browse = nil
        facts.portProbes = []
        facts.dataDirectory = nil
        return facts
    }

    /// The result of the check called `name` for `facts`.
    static func check(_ name: String, _ facts: DoctorFacts) -> DoctorCheckResult? {
        DoctorReport.evaluate(facts).checks.first { $0.name == name }
    }
}
