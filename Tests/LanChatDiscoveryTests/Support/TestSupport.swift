import LanChatCore
import Logging

#if canImport(Glibc)
    import Glibc
#endif

enum TestKeys {
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    /// A fixed canonical key per seed (top byte kept below 0x40, so always canonical).
    static func fixed(_ seed: UInt8) -> PeerKey {
        var bytes = (0..<32).map { UInt8(truncatingIfNeeded: Int(seed) &* 37 &+ $0 &* 11) }
        bytes[31] &= 0x3F
        return PeerKey(bytes: bytes) ?? random()
    }

    /// A random canonical key (bit 255 clear; the few values ≥ p are drawn again).
    static func random() -> PeerKey {
        while true {
            var bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
            bytes[31] &= 0x7F
            if let key = PeerKey(bytes: bytes) { return key }
        }
    }
}

enum TestEnvironment {
    static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }

    /// `LANCHAT_AVAHI_TESTS=1`: we run inside a (simulated) host whose avahi-daemon is up.
    static var avahiTestsEnabled: Bool { value("LANCHAT_AVAHI_TESTS") == "1" }

    /// True when no system D-Bus is reachable, so libavahi cannot create a client and no
    /// mDNS traffic can result from a test.
    static var hasNoSystemBus: Bool {
        value("DBUS_SYSTEM_BUS_ADDRESS") == nil
            && access("/run/dbus/system_bus_socket", F_OK) != 0
            && access("/var/run/dbus/system_bus_socket", F_OK) != 0
    }

    /// The level integration tests log at (`LANCHAT_AVAHI_TEST_LOG_LEVEL`, default info).
    static var logLevel: Logger.Level {
        value("LANCHAT_AVAHI_TEST_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info
    }
}

/// The addresses the kernel has on one interface, as text (no scope).
enum LocalAddresses {
    static func of(interface: String) -> Set<String> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var result: Set<String> = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            guard let name = entry.pointee.ifa_name, String(cString: name) == interface,
                let address = entry.pointee.ifa_addr
            else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length =
                Int32(address.pointee.sa_family) == AF_INET6
                ? socklen_t(MemoryLayout<sockaddr_in6>.size)
                : socklen_t(MemoryLayout<sockaddr_in>.size)
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6,
                getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
                    == 0
            else { continue }
            let text = String(
                decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            result.insert(String(text.prefix { $0 != "%" }))
        }
        return result
    }
}
