/// Which network interfaces mDNS results are taken from and the record is published on
/// (PRODUCT.md §3 `--interface`, PROTOCOL.md §10). Loopback is never used: a record seen
/// there is our own host talking to itself. Pure value; owned by the Avahi engine.
package struct InterfaceFilter: Hashable, Sendable {
    /// The configured interface names; empty means "every interface Avahi uses".
    package let allowedNames: Set<String>

    package init(allowedNames: some Sequence<String>) {
        self.allowedNames = Set(allowedNames.filter { !$0.isEmpty })
    }

    /// True when results seen on this interface are used.
    package func allows(_ interface: NetworkInterface) -> Bool {
        guard !interface.isLoopback else { return false }
        return allowedNames.isEmpty || allowedNames.contains(interface.name)
    }

    /// True when results already admitted on the interface with this name are still used
    /// (they were never admitted on loopback, so only the name matters).
    package func allows(interfaceNamed name: String) -> Bool {
        allowedNames.isEmpty || allowedNames.contains(name)
    }

    /// True when this filter takes results from an interface `old` did not: the browser must
    /// report again what it had already seen there (SIGHUP with a wider `interface` list).
    package func widens(_ old: InterfaceFilter) -> Bool {
        guard !old.allowedNames.isEmpty else { return false }
        return allowedNames.isEmpty || !allowedNames.isSubset(of: old.allowedNames)
    }

    /// True when the record is published on every interface (`AVAHI_IF_UNSPEC`) rather than on
    /// a list of named ones.
    package var publishesEverywhere: Bool { allowedNames.isEmpty }
}

/// A local network interface as the kernel reports it.
package struct NetworkInterface: Hashable, Sendable {
    package var index: Int32
    package var name: String
    package var isLoopback: Bool

    package init(index: Int32, name: String, isLoopback: Bool) {
        self.index = index
        self.name = name
        self.isLoopback = isLoopback
    }
}
