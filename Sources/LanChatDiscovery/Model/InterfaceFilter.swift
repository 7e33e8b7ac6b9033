/// Which network interfaces mDNS results are taken from and the record is published on
/// (PRODUCT.md §3 `--interface`, PROTOCOL.md §10). Loopback is never used: a record seen
/// there is our own host talking to itself. Pure value; owned by the Avahi engine.
struct InterfaceFilter: Hashable, Sendable {
    /// The configured interface names; empty means "every interface Avahi uses".
    let allowedNames: Set<String>

    init(allowedNames: some Sequence<String>) {
        self.allowedNames = Set(allowedNames.filter { !$0.isEmpty })
    }

    /// True when results seen on this interface are used.
    func allows(_ interface: NetworkInterface) -> Bool {
        guard !interface.isLoopback else { return false }
        return allowedNames.isEmpty || allowedNames.contains(interface.name)
    }

    /// True when the record is published on every interface (`AVAHI_IF_UNSPEC`) rather than on
    /// a list of named ones.
    var publishesEverywhere: Bool { allowedNames.isEmpty }
}

/// A local network interface as the kernel reports it.
struct NetworkInterface: Hashable, Sendable {
    var index: Int32
    var name: String
    var isLoopback: Bool
}
