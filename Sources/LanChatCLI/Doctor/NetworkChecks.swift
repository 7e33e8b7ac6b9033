import LanChatClient

/// An interface that is up, not loopback, has a carrier and multicast on, and has an
/// address: what mDNS needs (`ip -j addr`).
struct MulticastCheck: DoctorCheck {
    let name = "multicast"

    struct Interface: Hashable {
        var name: String
        var flags: Set<String>
        var hasAddress: Bool
    }

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        // Multicast carries mDNS only; sessions are unicast TCP.
        if facts.daemon?.avahi == "disabled" {
            return .skipped(name, "not used: the daemon runs with --no-mdns")
        }
        return judgedOnlyWithMDNS(verdict(facts), facts)
    }

    private func verdict(_ facts: DoctorFacts) -> DoctorCheckResult {
        guard case .ran(let output) = facts.addresses else {
            return .skipped(name, "ip is missing; to check, install it: sudo apt install iproute2")
        }
        guard output.succeeded, let json = JSONValue.parse(output.standardOutput) else {
            return .skipped(name, "ip -j addr failed: \(output.firstErrorLine)")
        }
        let interfaces = Self.interfaces(json).filter { !$0.flags.contains("LOOPBACK") }
        let up = interfaces.filter { $0.flags.contains("UP") }
        let usable = up.filter {
            $0.flags.contains("MULTICAST") && $0.flags.contains("LOWER_UP") && $0.hasAddress
        }
        if !usable.isEmpty {
            return .passed(name, "multicast on \(usable.map(\.name).joined(separator: ", "))")
        }
        if let noMulticast = up.first(where: { !$0.flags.contains("MULTICAST") }) {
            return .failed(
                name, "\(noMulticast.name) is up but has multicast off",
                fix: "sudo ip link set dev \(shellQuoted(noMulticast.name)) multicast on")
        }
        if let noCarrier = up.first(where: { !$0.flags.contains("LOWER_UP") }) {
            return .failed(
                name, "\(noCarrier.name) is up but has no carrier (cable or Wi-Fi not connected)",
                fix: "connect \(noCarrier.name) to the network (nmcli device connect "
                    + "\(shellQuoted(noCarrier.name)))")
        }
        if let noAddress = up.first {
            return .failed(
                name, "\(noAddress.name) is up but has no address",
                fix: "nmcli device connect \(shellQuoted(noAddress.name))")
        }
        let down = interfaces.first?.name ?? "IF"
        return .failed(
            name, "no network interface besides loopback is up",
            fix: "sudo ip link set dev \(shellQuoted(down)) up")
    }

    static func interfaces(_ json: JSONValue) -> [Interface] {
        json.array.compactMap { item in
            guard let name = item["ifname"]?.string else { return nil }
            let flags = Set(item["flags"]?.array.compactMap(\.string) ?? [])
            let hasAddress = !(item["addr_info"]?.array.isEmpty ?? true)
            return Interface(name: name, flags: flags, hasAddress: hasAddress)
        }
    }
}

/// Something accepts TCP connections on the daemon's listening port, tried on loopback
/// (or the address it listens on, when it is not a wildcard).
struct PortCheck: DoctorCheck {
    let name = "port"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        guard let status = facts.daemon else { return skippedWithoutDaemon(name) }
        guard !facts.portProbes.isEmpty else {
            let listening = status.listening.joined(separator: ", ")
            return .failed(
                name,
                "lanchatd reports no listening port it can be reached on "
                    + "(\(listening.isEmpty ? "none" : listening))",
                fix: DoctorFix.restartDaemonAndLog(facts))
        }
        if let reached = facts.portProbes.first(where: { $0.failure == nil }) {
            return .passed(name, "\(reached.address) accepts connections")
        }
        let tried = facts.portProbes.map { "\($0.address): \($0.failure ?? "")" }
        return .failed(
            name, "nothing accepts connections on " + tried.joined(separator: ", "),
            fix: DoctorFix.restartDaemonAndLog(facts))
    }
}

/// Where to connect to reach a listener the daemon reports: `0.0.0.0:41000`,
/// `[::]:41000` or NIO's `[IPv6]::/:::41000` → loopback of that family; a specific address
/// → that address.
enum ListeningAddress {
    struct Target: Hashable {
        var host: String
        var port: Int

        /// `127.0.0.1:41000`, `[::1]:41000`.
        var display: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    static func targets(_ listening: [String]) -> [Target] {
        var targets: [Target] = []
        for entry in listening {
            guard let (host, port) = split(entry) else { continue }
            let target: Target
            switch host {
            case "0.0.0.0", "": target = Target(host: "127.0.0.1", port: port)
            case "::": target = Target(host: "::1", port: port)
            default: target = Target(host: host, port: port)
            }
            if !targets.contains(target) { targets.append(target) }
        }
        // A dual-stack wildcard listener takes IPv4 too; try both loopbacks.
        if let v6 = targets.first(where: { $0.host == "::1" }),
            !targets.contains(where: { $0.host == "127.0.0.1" })
        {
            targets.append(Target(host: "127.0.0.1", port: v6.port))
        }
        return targets
    }

    /// The host (without brackets) and port of one entry, or nil.
    static func split(_ entry: String) -> (String, Int)? {
        var text = Substring(entry)
        // NIO's description: `[IPv4]host/address:port`; the address is after the slash.
        if text.hasPrefix("[IPv"), let slash = text.firstIndex(of: "/") {
            text = text[text.index(after: slash)...]
        }
        guard let colon = text.lastIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (String(host), port)
    }

    /// The TCP port of the first entry that has one.
    static func port(_ listening: [String]) -> Int? {
        listening.lazy.compactMap { split($0)?.1 }.first
    }
}
