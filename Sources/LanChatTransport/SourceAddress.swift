import Glibc

/// Who a connection counts as for the per-address limits: the admission's token bucket and
/// failure penalty (PROTOCOL.md §4.6) and the budget of keys never met (§3.8, `NewKeyBudget`).
/// An IPv4 address is itself. A global or unique-local IPv6 address counts as its /64: a host
/// is handed a whole /64 and takes addresses in it at will (privacy addresses), so counted
/// one by one, each limit would be 2^64 times wider for it. A link-local address is itself,
/// as every host of a link shares fe80::/64. Pure; the listener and the daemon both use it.
public struct SourceAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address, or `2001:db8:1:2::/64` for the /64 it counts as.
    public let description: String
    /// 127.0.0.0/8 or ::1: this machine, no LAN host's doing.
    public let isLoopback: Bool

    /// `host`: an IP literal as NIO prints it (an IPv4-mapped IPv6 address counts as the IPv4
    /// address it carries); anything else counts as itself.
    public init(host: String) {
        let bare = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: v4) { Array($0) }, original: host)
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            self.init(bytes: withUnsafeBytes(of: v6) { Array($0) }, original: host)
        } else {
            self.init(description: host, isLoopback: false)
        }
    }

    private init(description: String, isLoopback: Bool) {
        self.description = description
        self.isLoopback = isLoopback
    }

    private init(bytes: [UInt8], original: String) {
        let target = ArrivalScope.Target(bytes: bytes)
        isLoopback = target.isLoopback
        if target.bytes.count == 4 || target.isLoopback {
            description = target.description
        } else if target.isLinkLocal {
            // The scope, when NIO gave one, tells apart the same address on two links.
            let scope = original.split(separator: "%", maxSplits: 1).dropFirst().first
            description = target.description + (scope.map { "%\($0)" } ?? "")
        } else {
            let prefix = ArrivalScope.Target(
                bytes: Array(target.bytes.prefix(8)) + Array(repeating: 0, count: 8))
            description = prefix.description + "/64"
        }
    }
}
