/// No nftables rule drops mDNS (UDP 5353) or the daemon's TCP port on the way in, and no
/// input chain drops them by default without a rule that accepts them (`nft -j list
/// ruleset`). Rules are matched on their port alone: a rule that drops UDP 5353 only from
/// some addresses is still reported, since the doctor cannot tell where peers are.
struct FirewallCheck: DoctorCheck {
    let name = "firewall"

    /// A port lanchat needs to receive on.
    struct Port: Hashable {
        var proto: String
        var number: Int
        var label: String { "\(proto.uppercased()) \(number)" }
    }

    struct Chain: Hashable {
        var family: String
        var table: String
        var name: String
        var hook: String?
        var policy: String?
        var path: String { "\(family) \(table) \(name)" }
    }

    struct Rule: Hashable {
        var family: String
        var table: String
        var chain: String
        var handle: Int
        var expressions: [JSONValue]
    }

    /// Hooks whose rules never see a packet arriving for this host.
    static let outgoingHooks: Set<String> = ["output", "postrouting", "forward"]

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        guard case .ran(let output) = facts.ruleset else {
            return .skipped(name, "nft is not installed: no nftables ruleset to check")
        }
        guard output.succeeded, let json = JSONValue.parse(output.standardOutput) else {
            let why = output.firstErrorLine.lowercased()
            if why.contains("not permitted") || why.contains("permission denied") {
                return .skipped(name, "cannot read the ruleset (run as root to check)")
            }
            return .skipped(name, "cannot read the ruleset: \(output.firstErrorLine)")
        }
        var ports = [Port(proto: "udp", number: 5353)]
        if let port = facts.daemon.flatMap({ ListeningAddress.port($0.listening) }) {
            ports.append(Port(proto: "tcp", number: port))
        }
        let problems = Self.problems(json, ports: ports)
        guard !problems.isEmpty else {
            return .passed(
                name, "no nftables rule drops " + ports.map(\.label).joined(separator: " or "))
        }
        return .failed(
            name, problems.map(\.detail).joined(separator: "; "),
            fix: problems.map(\.fix).joined(separator: " && "))
    }

    struct Problem: Hashable {
        var detail: String
        var fix: String
    }

    static func problems(_ json: JSONValue, ports: [Port]) -> [Problem] {
        let (chains, rules) = parse(json)
        var problems: [Problem] = []
        for port in ports {
            var acceptingTables: Set<String> = []
            for rule in rules {
                guard
                    let chain = chains.first(where: {
                        $0.family == rule.family && $0.table == rule.table && $0.name == rule.chain
                    }), !outgoingHooks.contains(chain.hook ?? ""), matches(rule, port)
                else { continue }
                switch verdict(rule) {
                case "drop", "reject":
                    problems.append(
                        Problem(
                            detail: "rule \(rule.handle) of \(chain.path) "
                                + "\(verdict(rule) ?? "drop")s \(port.label)",
                            fix: "sudo nft delete rule \(chain.path) handle \(rule.handle)"))
                case "accept":
                    acceptingTables.insert("\(rule.family) \(rule.table)")
                default: break
                }
            }
            for chain in chains
            where chain.hook == "input" && chain.policy == "drop"
                && !acceptingTables.contains("\(chain.family) \(chain.table)")
            {
                problems.append(
                    Problem(
                        detail: "\(chain.path) drops by default and no rule accepts \(port.label)",
                        fix: "sudo nft insert rule \(chain.path) \(port.proto) dport "
                            + "\(port.number) accept"))
            }
        }
        return problems
    }

    static func parse(_ json: JSONValue) -> ([Chain], [Rule]) {
        var chains: [Chain] = []
        var rules: [Rule] = []
        for item in json["nftables"]?.array ?? [] {
            if let chain = item["chain"], let family = chain["family"]?.string,
                let table = chain["table"]?.string, let name = chain["name"]?.string
            {
                chains.append(
                    Chain(
                        family: family, table: table, name: name, hook: chain["hook"]?.string,
                        policy: chain["policy"]?.string))
            }
            if let rule = item["rule"], let family = rule["family"]?.string,
                let table = rule["table"]?.string, let chain = rule["chain"]?.string,
                let handle = rule["handle"]?.integer
            {
                rules.append(
                    Rule(
                        family: family, table: table, chain: chain, handle: handle,
                        expressions: rule["expr"]?.array ?? []))
            }
        }
        return (chains.filter { $0.family != "arp" && $0.family != "bridge" }, rules)
    }

    /// True when one of the rule's matches is `PROTO dport` (or `th dport`) equal to, or a
    /// set or range containing, the port.
    static func matches(_ rule: Rule, _ port: Port) -> Bool {
        rule.expressions.contains { expression in
            guard let match = expression["match"],
                let op = match["op"]?.string, op == "==" || op == "in",
                let payload = match["left"]?["payload"],
                payload["field"]?.string == "dport",
                let proto = payload["protocol"]?.string, proto == port.proto || proto == "th",
                let right = match["right"]
            else { return false }
            return contains(right, port.number)
        }
    }

    static func contains(_ value: JSONValue, _ port: Int) -> Bool {
        if let number = value.integer { return number == port }
        if let range = value["range"]?.array, range.count == 2,
            let low = range[0].integer, let high = range[1].integer
        {
            return (low...high).contains(port)
        }
        if let set = value["set"] { return set.array.contains { contains($0, port) } }
        return false
    }

    /// `drop`, `reject`, `accept` or nil (a rule that only counts, logs or jumps).
    static func verdict(_ rule: Rule) -> String? {
        for expression in rule.expressions {
            for verdict in ["drop", "reject", "accept"] where expression[verdict] != nil {
                return verdict
            }
        }
        return nil
    }
}
