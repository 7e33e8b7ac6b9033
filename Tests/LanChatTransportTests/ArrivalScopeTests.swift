import Glibc
import NIOCore
import Testing

@testable import LanChatTransport

/// `--interface` on the listener: a connection is judged by the local address it was made
/// to, against an interface table the test writes (the system scenario 32 uses the real one).
@Suite("Inbound connections scoped to --interface")
struct ArrivalScopeTests {
    static let table: [ArrivalScope.LocalAddress] = [
        .init(interface: "lo", bytes: [127, 0, 0, 1], index: 1),
        .init(interface: "eth0", bytes: [10, 0, 0, 1], index: 2),
        .init(interface: "wlan0", bytes: [192, 168, 1, 20], index: 3),
        .init(interface: "eth0", bytes: Self.linkLocal, index: 2),
        // The same link-local address on two links: only the scope tells them apart.
        .init(interface: "wlan0", bytes: Self.linkLocal, index: 3),
    ]
    static let linkLocal: [UInt8] = [0xfe, 0x80] + Array(repeating: 0, count: 13) + [1]

    func scope(_ interfaces: [String]) -> ArrivalScope {
        ArrivalScope(interfaces: interfaces, localAddresses: { Self.table })
    }

    func local(_ ip: String) throws -> SocketAddress {
        try SocketAddress(ipAddress: ip, port: 7000)
    }

    func linkLocal(scope index: UInt32) -> SocketAddress {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(7000).bigEndian
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: Self.linkLocal) }
        address.sin6_scope_id = index
        return SocketAddress(address, host: "fe80::1")
    }

    @Test func withoutAListEveryAddressIsAccepted() throws {
        let open = scope([])
        #expect(open.decide(local: try local("192.168.1.20")) == .accepted)
        #expect(open.decide(local: try local("203.0.113.9")) == .accepted)
    }

    @Test func anAddressOfAListedInterfaceIsAcceptedAndOfAnotherRefused() throws {
        let wired = scope(["eth0"])
        #expect(wired.decide(local: try local("10.0.0.1")) == .accepted)
        #expect(wired.decide(local: try local("192.168.1.20")) == .refused(interface: "wlan0"))
        // An address no interface holds (gone since the connection was made): refused.
        #expect(wired.decide(local: try local("203.0.113.9")) == .refused(interface: nil))
        #expect(wired.decide(local: nil) == .refused(interface: nil))
    }

    @Test func aDualStackListenerSeesIPv4AsMappedAndItIsJudgedAsIPv4() throws {
        let wired = scope(["eth0"])
        #expect(wired.decide(local: try local("::ffff:10.0.0.1")) == .accepted)
        #expect(
            wired.decide(local: try local("::ffff:192.168.1.20")) == .refused(interface: "wlan0"))
    }

    @Test func loopbackIsAlwaysAccepted() throws {
        let wired = scope(["eth0"])
        for address in ["127.0.0.1", "127.0.0.53", "::1", "::ffff:127.0.0.1"] {
            #expect(wired.decide(local: try local(address)) == .accepted, "\(address)")
        }
    }

    @Test func aLinkLocalAddressIsJudgedByItsScope() {
        let wired = scope(["eth0"])
        #expect(wired.decide(local: linkLocal(scope: 2)) == .accepted)
        #expect(wired.decide(local: linkLocal(scope: 3)) == .refused(interface: "wlan0"))
    }

    @Test func aNewListReplacesTheOldForTheNextConnection() throws {
        let changing = scope(["eth0"])
        changing.allow(["wlan0"])
        #expect(changing.interfaces == ["wlan0"])
        #expect(changing.decide(local: try local("192.168.1.20")) == .accepted)
        #expect(changing.decide(local: try local("10.0.0.1")) == .refused(interface: "eth0"))
        changing.allow([])
        #expect(changing.decide(local: try local("10.0.0.1")) == .accepted)
    }

    @Test func aLogShowsAMappedAddressAsIPv4() throws {
        #expect(ArrivalScope.Target(try local("::ffff:10.0.0.1"))?.description == "10.0.0.1")
        #expect(linkLocalDescription == "fe80::1")
    }

    var linkLocalDescription: String? { ArrivalScope.Target(linkLocal(scope: 2))?.description }

    @Test func statusListsTheAddressesOfTheListedInterfacesAndLoopback() {
        let table =
            Self.table + [
                .init(interface: "lo", bytes: Array(repeating: 0, count: 15) + [1], index: 1)
            ]
        #expect(
            ArrivalScope.listeningAddresses(port: 7000, allowed: ["eth0"], table: table) == [
                "127.0.0.1:7000", "10.0.0.1:7000", "[fe80::1%eth0]:7000", "[::1]:7000",
            ])
        // An interface that has no address now: loopback is all that takes connections.
        #expect(
            ArrivalScope.listeningAddresses(port: 7000, allowed: ["eth9"], table: table) == [
                "127.0.0.1:7000", "[::1]:7000",
            ])
        #expect(scope([]).listeningAddresses(port: 7000) == nil)
        #expect(
            scope(["wlan0"]).listeningAddresses(port: 7000) == [
                "127.0.0.1:7000", "192.168.1.20:7000", "[fe80::1%wlan0]:7000",
            ])
    }

    @Test func theSystemTableHasLoopback() {
        let table = ArrivalScope.systemAddresses()
        #expect(table.contains { $0.bytes == [127, 0, 0, 1] && $0.index > 0 }, "\(table)")
    }
}
