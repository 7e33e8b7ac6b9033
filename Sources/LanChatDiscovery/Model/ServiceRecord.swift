import LanChatCore

/// The address family of a browse or resolve result (`AVAHI_PROTO_INET` / `_INET6`).
/// Ordered IPv4 first: the order endpoints are offered for dialling.
package enum AddressFamily: Int, Hashable, Sendable, Comparable, CaseIterable {
    case ipv4 = 0
    case ipv6 = 1

    package static func < (lhs: AddressFamily, rhs: AddressFamily) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// One announced instance as the browser reports it: a name on an interface. Results of the
/// two address families on one interface are merged into one `DiscoveredPeer`; the same name
/// on another interface is another instance (as `ServiceInstance` is name plus interface).
package struct InstanceKey: Hashable, Sendable {
    package var name: String
    package var interface: String

    package init(name: String, interface: String) {
        self.name = name
        self.interface = interface
    }

    package var serviceInstance: ServiceInstance {
        ServiceInstance(name: name, interface: interface)
    }
}

/// One browse result: an instance seen over one address family. Each has its own resolver.
package struct SlotKey: Hashable, Sendable {
    package var instance: InstanceKey
    package var family: AddressFamily

    package init(instance: InstanceKey, family: AddressFamily) {
        self.instance = instance
        self.family = family
    }
}

/// A resolver result copied out of Avahi's callback, before any validation.
package struct Resolution: Hashable, Sendable {
    package var hostName: String
    /// The address as Avahi prints it (`169.254.1.2`, `fe80::1`), without scope.
    package var address: String
    package var port: UInt16
    /// The raw TXT strings.
    package var txt: [[UInt8]]

    package init(hostName: String, address: String, port: UInt16, txt: [[UInt8]]) {
        self.hostName = hostName
        self.address = address
        self.port = port
        self.txt = txt
    }
}

/// Why a resolved record was not turned into a peer (logged at debug level).
package enum DroppedRecord: Hashable, Sendable {
    case invalidTXT(TXTRecordRejection)
    /// The record carries our own id (PROTOCOL.md §3.3, §7.3 item 45).
    case ownKey
}

extension Endpoint {
    /// The endpoint to dial for a resolved address: an IPv6 link-local address only works
    /// with the interface it was seen on as its scope (PROTOCOL.md §10).
    package init(resolvedAddress address: String, port: UInt16, interface: String) {
        self.init(
            host: address, port: port,
            scope: Self.isLinkLocalIPv6(address) ? interface : nil)
    }

    /// True for `fe80::/10` in text form: the first group is `fe8x`…`febx`.
    package static func isLinkLocalIPv6(_ address: String) -> Bool {
        let firstGroup = Array(address.lowercased().prefix { $0 != ":" })
        guard address.contains(":"), firstGroup.count == 4 else { return false }
        return firstGroup[0] == "f" && firstGroup[1] == "e" && "89ab".contains(firstGroup[2])
    }
}
