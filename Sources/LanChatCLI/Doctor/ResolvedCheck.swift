/// systemd-resolved does not run its own mDNS responder next to avahi-daemon: two stacks on
/// UDP 5353 steal each other's packets and Avahi warns "another mDNS stack". Asked with
/// `resolvectl mdns`; without resolvectl, from `MulticastDNS=` in resolved.conf.
struct ResolvedCheck: DoctorCheck {
    let name = "systemd-resolved"

    static let fix =
        "sudo mkdir -p /etc/systemd/resolved.conf.d && printf '[Resolve]\\nMulticastDNS=no\\n' "
        + "| sudo tee /etc/systemd/resolved.conf.d/no-mdns.conf && sudo systemctl restart "
        + "systemd-resolved"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        switch facts.resolvectl {
        case .ran(let output) where output.succeeded:
            let settings = Self.settings(output.standardOutput)
            let global = settings["Global"] ?? "no"
            let responding = settings.filter { $0.key != "Global" && $0.value == "yes" }
                .map(\.key).sorted()
            if global == "yes" && !responding.isEmpty {
                return .failed(
                    name,
                    "answers mDNS itself on \(responding.joined(separator: ", ")), competing "
                        + "with avahi-daemon",
                    fix: Self.fix)
            }
            return .passed(name, "its mDNS responder is off (MulticastDNS: \(global))")
        case .ran:
            // resolvectl cannot reach resolved: it is not running, so it cannot compete.
            return .passed(name, "not running")
        case .missing:
            if facts.resolvedConfMulticastDNS.map(Self.enabled) == true {
                return .failed(
                    name,
                    "resolved.conf sets MulticastDNS=\(facts.resolvedConfMulticastDNS ?? "") "
                        + "(resolvectl is missing, so it may not run)",
                    fix: Self.fix)
            }
            return .passed(name, "resolvectl is missing and resolved.conf leaves mDNS off")
        }
    }

    /// `Global: yes` / `Link 2 (eth0): no` lines → `["Global": "yes", "eth0": "no"]`.
    static func settings(_ output: String) -> [String: String] {
        var settings: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let colon = line.lastIndex(of: ":") else { continue }
            var key = trimmed(line[..<colon])
            let value = trimmed(line[line.index(after: colon)...]).lowercased()
            if let open = key.firstIndex(of: "("), let close = key.lastIndex(of: ")"),
                open < close
            {
                key = String(key[key.index(after: open)..<close])
            }
            settings[key] = value
        }
        return settings
    }

    /// resolved's boolean-or-"resolve" setting: only a true value answers queries.
    static func enabled(_ value: String) -> Bool {
        ["yes", "true", "1", "on"].contains(trimmed(value).lowercased())
    }

    /// The last `MulticastDNS=` in the `[Resolve]` sections of `files` (read in order:
    /// resolved.conf, then its drop-ins sorted), or nil.
    static func multicastDNS(in files: [String]) -> String? {
        var value: String?
        for file in files {
            for line in file.split(separator: "\n") {
                let text = trimmed(line)
                guard text.hasPrefix("MulticastDNS"), let equals = text.firstIndex(of: "=")
                else { continue }
                guard trimmed(text[..<equals]) == "MulticastDNS" else { continue }
                value = trimmed(text[text.index(after: equals)...])
            }
        }
        return value
    }
}
