import NIOCore
import Testing

@testable import LanChatCore
@testable import LanChatTransport

/// Whom the per-address limits count a connection as (admission, new keys).
@Suite struct SourceAddressTests {
    @Test func anIPv4AddressIsItselfAlsoWhenMapped() {
        #expect(SourceAddress(host: "10.0.0.5").description == "10.0.0.5")
        #expect(SourceAddress(host: "::ffff:10.0.0.5").description == "10.0.0.5")
        #expect(!SourceAddress(host: "10.0.0.5").isLoopback)
    }

    @Test func aGlobalIPv6AddressCountsAsItsSlash64() {
        let one = SourceAddress(host: "2001:db8:1:2:3:4:5:6")
        let other = SourceAddress(host: "2001:db8:1:2:ffff::1")
        #expect(one.description == "2001:db8:1:2::/64")
        #expect(one == other)
        #expect(SourceAddress(host: "2001:db8:1:3::1") != one)
        #expect(SourceAddress(host: "fd00:1:2:3::9").description == "fd00:1:2:3::/64")
    }

    @Test func aLinkLocalAddressIsItselfWithItsScope() {
        #expect(SourceAddress(host: "fe80::1").description == "fe80::1")
        #expect(SourceAddress(host: "fe80::1%eth0").description == "fe80::1%eth0")
        #expect(SourceAddress(host: "fe80::1") != SourceAddress(host: "fe80::2"))
    }

    @Test func loopbackOfEitherFamilyIsLoopback() {
        for host in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            #expect(SourceAddress(host: host).isLoopback, "\(host)")
        }
    }

    @Test func whatIsNoAddressCountsAsItself() {
        #expect(SourceAddress(host: "unknown").description == "unknown")
        #expect(!SourceAddress(host: "unknown").isLoopback)
    }

    @Test func aPeerReachingADualStackListenerOverIPv4IsListedByItsIPv4Address() throws {
        let mapped = try SocketAddress(ipAddress: "::ffff:10.0.0.5", port: 7000)
        #expect(Endpoint(mapped)?.host == "10.0.0.5")
        let v6 = try SocketAddress(ipAddress: "2001:db8::1", port: 7000)
        #expect(Endpoint(v6)?.host == "2001:db8::1")
    }
}
