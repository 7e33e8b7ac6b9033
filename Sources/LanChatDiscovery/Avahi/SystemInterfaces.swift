#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Looks up local network interfaces by index (browse results) or name (`--interface`).
/// Non-blocking system calls; called on Avahi's poll thread.
enum SystemInterfaces {
    /// The interface with this kernel index, or nil if it is gone.
    static func interface(index: Int32) -> NetworkInterface? {
        guard index > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(index), &buffer) != nil else { return nil }
        let name = String(
            decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return NetworkInterface(index: index, name: name, isLoopback: isLoopback(name: name))
    }

    /// The interface with this name, or nil if there is none.
    static func interface(named name: String) -> NetworkInterface? {
        let index = if_nametoindex(name)
        guard index > 0, let index = Int32(exactly: index) else { return nil }
        return NetworkInterface(index: index, name: name, isLoopback: isLoopback(name: name))
    }

    /// True when the kernel flags the interface as loopback (or it is `lo`, if the flags
    /// cannot be read).
    private static func isLoopback(name: String) -> Bool {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return name == "lo" }
        defer { freeifaddrs(first) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            if let entryName = entry.pointee.ifa_name, String(cString: entryName) == name {
                return entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) != 0
            }
            cursor = entry.pointee.ifa_next
        }
        return name == "lo"
    }
}
