/// A TCP address to dial: an IP literal (or host name, for `--peer`), a port, and for IPv6
/// link-local addresses the interface scope (PROTOCOL.md §10).
public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    /// Interface name for a scoped IPv6 link-local address (`fe80::1%eth0`), else nil.
    public var scope: String?

    public init(host: String, port: UInt16, scope: String? = nil) {
        self.host = host
        self.port = port
        self.scope = scope
    }

    /// `host:port`, `[v6]:port` or `[v6%scope]:port`: the form shown in `addresses`.
    public var description: String {
        let scoped = scope.map { "\(host)%\($0)" } ?? host
        return host.contains(":") ? "[\(scoped)]:\(port)" : "\(scoped):\(port)"
    }

    /// Parses `HOST:PORT`, `[V6]:PORT` or `[V6%IF]:PORT`. Nil for anything else.
    public init?(parsing text: some StringProtocol) {
        let text = String(text)
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            guard !hostPart.contains(":") else { return nil }
        }
        guard !hostPart.isEmpty, let port = UInt16(portPart), port != 0 else { return nil }
        if let percent = hostPart.firstIndex(of: "%") {
            let scope = hostPart[hostPart.index(after: percent)...]
            guard !scope.isEmpty else { return nil }
            self.init(host: String(hostPart[..<percent]), port: port, scope: String(scope))
        } else {
            self.init(host: String(hostPart), port: port)
        }
    }
}
