import LanChatCore
import LanChatDiscovery
import Testing

/// `--interface` filtering (loopback never), link-local scoping of endpoints, and the libavahi
/// helpers that need no daemon.
@Suite struct InterfaceAndEndpointTests {
    static let eth0 = NetworkInterface(index: 2, name: "eth0", isLoopback: false)
    static let wlan0 = NetworkInterface(index: 3, name: "wlan0", isLoopback: false)
    static let lo = NetworkInterface(index: 1, name: "lo", isLoopback: true)

    @Test func withoutAListEveryInterfaceButLoopbackIsUsed() {
        let filter = InterfaceFilter(allowedNames: [])
        #expect(filter.allows(Self.eth0))
        #expect(filter.allows(Self.wlan0))
        #expect(!filter.allows(Self.lo))
        #expect(filter.publishesEverywhere)
    }

    @Test func withAListOnlyThoseAreUsedAndNeverLoopback() {
        let filter = InterfaceFilter(allowedNames: ["eth0", "lo", ""])
        #expect(filter.allows(Self.eth0))
        #expect(!filter.allows(Self.wlan0))
        #expect(!filter.allows(Self.lo))
        #expect(!filter.publishesEverywhere)
        #expect(filter.allowedNames == ["eth0", "lo"])
    }

    /// SIGHUP: results already admitted are kept only on interfaces still allowed.
    @Test func admittedResultsAreJudgedByInterfaceName() {
        #expect(InterfaceFilter(allowedNames: []).allows(interfaceNamed: "wlan0"))
        #expect(InterfaceFilter(allowedNames: ["eth0"]).allows(interfaceNamed: "eth0"))
        #expect(!InterfaceFilter(allowedNames: ["eth0"]).allows(interfaceNamed: "wlan0"))
    }

    /// SIGHUP: the browser must report again only when some interface becomes allowed.
    @Test(arguments: [
        ([], [], false), (["eth0"], [], true), ([], ["eth0"], false),
        (["eth0"], ["eth0"], false), (["eth0"], ["eth0", "wlan0"], true),
        (["eth0", "wlan0"], ["eth0"], false), (["eth0"], ["wlan0"], true),
    ])
    func aListWidensWhenItAllowsAnInterfaceTheOldOneDidNot(
        old: [String], new: [String], widens: Bool
    ) {
        let widened = InterfaceFilter(allowedNames: new).widens(InterfaceFilter(allowedNames: old))
        #expect(widened == widens)
    }

    @Test(arguments: [
        ("fe80::1", true), ("FE80::1", true), ("febf:1::2", true), ("fe8::1", false),
        ("fec0::1", false), ("2001:db8::1", false), ("169.254.1.2", false), ("fe80", false),
    ])
    func linkLocalIPv6IsRecognised(address: String, linkLocal: Bool) {
        #expect(Endpoint.isLinkLocalIPv6(address) == linkLocal)
    }

    @Test func onlyLinkLocalIPv6EndpointsCarryTheInterfaceScope() {
        let linkLocal = Endpoint(resolvedAddress: "fe80::1", port: 1, interface: "eth0")
        #expect(linkLocal.description == "[fe80::1%eth0]:1")
        #expect(Endpoint(resolvedAddress: "2001:db8::1", port: 1, interface: "eth0").scope == nil)
        #expect(Endpoint(resolvedAddress: "169.254.1.2", port: 1, interface: "eth0").scope == nil)
    }

    @Test func alternativeNamesFollowAvahi() {
        #expect(AvahiNames.alternative(for: "alice (ABCD-EFGH)") == "alice (ABCD-EFGH) #2")
        #expect(AvahiNames.alternative(for: "alice (ABCD-EFGH) #2") == "alice (ABCD-EFGH) #3")
    }

    @Test func ourTXTStringsKeepTheirOrderAndBytesThroughAvahi() throws {
        let advertisement = Advertisement(
            instanceName: "a", port: 1, key: TestKeys.fixed(4), status: .busy,
            statusText: "Grüße 🙂")
        let strings = TXTRecord.encode(advertisement)
        let roundTrip = try AvahiNames.txtRoundTrip(strings)
        #expect(roundTrip == strings.map { Array($0.utf8) })
        #expect(
            TXTRecord.parse(roundTrip).map(\.key) == .success(advertisement.key))
    }
}
