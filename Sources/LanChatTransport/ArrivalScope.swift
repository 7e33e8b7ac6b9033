import Glibc
import NIOCore
import NIOPosix
import Synchronization

/// Which of this machine's interfaces take inbound connections (`--interface`). The listener
/// binds every interface (one port, announced once over mDNS, whatever comes and goes), so
/// the scope is checked on each accepted connection, by the local address it was made to,
/// before admission: a connection to an address of another interface costs no handshake and
/// is closed at once. Loopback is always accepted: nothing reaches it from the network.
///
/// The daemon owns the list (the configuration, replaced on reload); the listener only asks.
/// The interface table is read at each decision, so addresses that come and go (DHCP, a VPN
/// up later) are judged as they are now. Tests inject the table.
public final class ArrivalScope: Sendable {
    /// One address of this machine and the interface that holds it.
    public struct LocalAddress: Hashable, Sendable {
        public var interface: String
        /// 4 bytes (IPv4) or 16 (IPv6), network order.
        public var bytes: [UInt8]
        /// The interface's index: it tells apart link-local addresses, which are scoped.
        public var index: UInt32

        public init(interface: String, bytes: [UInt8], index: UInt32) {
            self.interface = interface
            self.bytes = bytes
            self.index = index
        }
    }

    /// What happens to a connection made to one of our addresses.
    public enum Decision: Equatable, Sendable {
        case accepted
        /// The address belongs to an interface outside the list (nil: to none we know of).
        case refused(interface: String?)
    }

    private let allowed: Mutex<[String]>
    private let localAddresses: @Sendable () -> [LocalAddress]

    /// `interfaces` empty: every interface.
    public init(
        interfaces: [String] = [],
        localAddresses: @escaping @Sendable () -> [LocalAddress] = ArrivalScope.systemAddresses
    ) {
        self.allowed = Mutex(interfaces)
        self.localAddresses = localAddresses
    }

    /// The interfaces allowed now (empty: all).
    public var interfaces: [String] { allowed.withLock { $0 } }

    /// Replaces the list; connections accepted from now on are judged by it, sessions already
    /// open are left alone.
    public func allow(_ interfaces: [String]) {
        allowed.withLock { $0 = interfaces }
    }

    /// Judges a connection accepted on `local`, the address it was made to.
    func decide(local: SocketAddress?) -> Decision {
        let interfaces = self.interfaces
        guard !interfaces.isEmpty else { return .accepted }
        guard let target = local.flatMap(Target.init) else { return .refused(interface: nil) }
        return Self.decide(target, allowed: interfaces, table: localAddresses())
    }

    /// Where a connection is taken now, as `status` lists it: with a list, the addresses its
    /// interfaces hold and loopback's, each with `port` (IPv6 in brackets, a link-local one
    /// with its interface); nil without one (the listener's own wildcard says it all).
    public func listeningAddresses(port: Int) -> [String]? {
        let interfaces = self.interfaces
        guard !interfaces.isEmpty else { return nil }
        return Self.listeningAddresses(port: port, allowed: interfaces, table: localAddresses())
    }

    static func listeningAddresses(port: Int, allowed: [String], table: [LocalAddress])
        -> [String]
    {
        let taken = table.filter { entry in
            let target = Target(bytes: entry.bytes)
            return target.isLoopback || allowed.contains(entry.interface)
        }
        // IPv4 first, then IPv6; each family in the table's order.
        let ordered = taken.filter { $0.bytes.count == 4 } + taken.filter { $0.bytes.count != 4 }
        var listed: [String] = []
        for entry in ordered {
            let target = Target(bytes: entry.bytes)
            let text =
                entry.bytes.count == 4
                ? "\(target.description):\(port)"
                : "[\(target.description)\(target.isLinkLocal ? "%" + entry.interface : "")]:\(port)"
            if !listed.contains(text) { listed.append(text) }
        }
        return listed
    }

    /// The rule itself, on plain values.
    static func decide(_ target: Target, allowed: [String], table: [LocalAddress]) -> Decision {
        if allowed.isEmpty || target.isLoopback { return .accepted }
        let holders = table.filter { entry in
            entry.bytes == target.bytes
                && (target.scopeIndex == 0 || !target.isLinkLocal
                    || entry.index == target.scopeIndex)
        }
        if holders.contains(where: { allowed.contains($0.interface) }) { return .accepted }
        return .refused(interface: holders.first?.interface)
    }

    /// A local address as the rule compares it: IPv4-mapped IPv6 (what a dual-stack listener
    /// on `::` sees for an IPv4 connection) is taken as the IPv4 address it carries.
    struct Target: Equatable {
        var bytes: [UInt8]
        var scopeIndex: UInt32 = 0

        init(bytes: [UInt8], scopeIndex: UInt32 = 0) {
            let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
            if bytes.count == 16 && Array(bytes.prefix(12)) == mappedPrefix {
                self.bytes = Array(bytes.suffix(4))
            } else {
                self.bytes = bytes
                self.scopeIndex = scopeIndex
            }
        }

        init?(_ address: SocketAddress) {
            guard let ip = ArrivalScope.ip(of: address) else { return nil }
            self.init(bytes: ip.bytes, scopeIndex: ip.scope)
        }

        var isLoopback: Bool {
            bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
        }

        /// The address as a log shows it: IPv4 dotted (also a mapped one), IPv6 in hex groups.
        var description: String {
            if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard bytes.count == 16, inet_ntop(AF_INET6, bytes, &text, socklen_t(text.count)) != nil
            else { return "?" }
            return String(
                decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        var isLinkLocal: Bool {
            bytes.count == 16 && bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80
        }
    }

    /// The IP address of `address`, as bytes in network order, and its IPv6 scope.
    static func ip(of address: SocketAddress) -> (bytes: [UInt8], scope: UInt32)? {
        switch address {
        case .v4(let v4): (withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }, 0)
        case .v6(let v6):
            (withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }, v6.address.sin6_scope_id)
        case .unixDomainSocket: nil
        }
    }

    /// This machine's addresses now, from `getifaddrs` (through NIO).
    public static let systemAddresses: @Sendable () -> [LocalAddress] = {
        let devices = (try? System.enumerateDevices()) ?? []
        return devices.compactMap { device in
            guard let address = device.address, let ip = ip(of: address),
                let index = UInt32(exactly: device.interfaceIndex)
            else { return nil }
            return LocalAddress(interface: device.name, bytes: ip.bytes, index: index)
        }
    }
}
