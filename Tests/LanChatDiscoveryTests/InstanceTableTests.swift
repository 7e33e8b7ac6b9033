import LanChatCore
import LanChatDiscovery
import Testing

/// Merging of browse/resolve results into `.found`/`.lost` events, the own-key and TXT
/// filters, and the bound on tracked instances.
@Suite struct InstanceTableTests {
    static let ownKey = TestKeys.fixed(1)
    static let peerKey = TestKeys.fixed(2)

    static func txt(key: PeerKey = peerKey, status: String = "avail", message: String = "hi")
        -> [[UInt8]]
    {
        ["txtvers=1", "v=1", "id=\(key.id)", "status=\(status)", "msg=\(message)"].map {
            Array($0.utf8)
        }
    }

    static func slot(_ name: String, on interface: String = "eth0", _ family: AddressFamily)
        -> SlotKey
    {
        SlotKey(instance: InstanceKey(name: name, interface: interface), family: family)
    }

    /// Bob's instance on eth0.
    static func slot(_ family: AddressFamily) -> SlotKey { slot("bob (ABCD-EFGH)", family) }

    static func resolution(_ address: String, txt: [[UInt8]] = txt(), port: UInt16 = 4711)
        -> Resolution
    {
        Resolution(hostName: "bob.local", address: address, port: port, txt: txt)
    }

    static func admitted(_ slots: SlotKey..., capacity: Int = 8) -> InstanceTable {
        var table = InstanceTable(ownKey: ownKey, capacity: capacity)
        for slot in slots { _ = table.admit(slot) }
        return table
    }

    /// Bob resolved on both families, at `ipv4` and `ipv6`.
    static func resolvedOnBothFamilies(ipv4: String, ipv6: String) -> InstanceTable {
        var table = admitted(slot(.ipv4), slot(.ipv6))
        _ = table.resolve(slot(.ipv4), resolution(ipv4))
        _ = table.resolve(slot(.ipv6), resolution(ipv6))
        return table
    }

    @Test func mergesBothFamiliesIntoOnePeerIPv4First() throws {
        let v4 = Self.slot(.ipv4)
        let v6 = Self.slot(.ipv6)
        var table = Self.admitted(v4, v6)

        // IPv6 answers first; the merged endpoints still list IPv4 first.
        let first = table.resolve(v6, Self.resolution("fe80::1"))
        let onlyV6 = try #require(first.events.first?.foundPeer)
        #expect(onlyV6.endpoints == [Endpoint(host: "fe80::1", port: 4711, scope: "eth0")])

        let second = table.resolve(v4, Self.resolution("169.254.0.2"))
        let both = try #require(second.events.first?.foundPeer)
        #expect(second.events.count == 1)
        #expect(
            both.endpoints == [
                Endpoint(host: "169.254.0.2", port: 4711),
                Endpoint(host: "fe80::1", port: 4711, scope: "eth0"),
            ])
        #expect(both.instance == ServiceInstance(name: "bob (ABCD-EFGH)", interface: "eth0"))
        #expect(both.hostName == "bob.local")
        #expect(both.announcement?.key == Self.peerKey)
    }

    @Test func repeatedIdenticalResultsEmitNothing() {
        let v4 = Self.slot(.ipv4)
        var table = Self.admitted(v4)
        #expect(table.resolve(v4, Self.resolution("10.0.0.2")).events.count == 1)
        #expect(table.resolve(v4, Self.resolution("10.0.0.2")).events.isEmpty)
    }

    @Test func changedTXTOrAddressIsFoundAgain() throws {
        let v4 = Self.slot(.ipv4)
        var table = Self.admitted(v4)
        _ = table.resolve(v4, Self.resolution("10.0.0.2"))
        let away = table.resolve(v4, Self.resolution("10.0.0.2", txt: Self.txt(status: "away")))
        #expect(away.events.first?.foundPeer?.announcement?.status == .away)
        let moved = table.resolve(v4, Self.resolution("10.0.0.3", txt: Self.txt(status: "away")))
        #expect(
            moved.events.first?.foundPeer?.endpoints == [Endpoint(host: "10.0.0.3", port: 4711)])
    }

    @Test func lostOnlyWhenTheLastFamilyGoes() {
        let v4 = Self.slot(.ipv4)
        let v6 = Self.slot(.ipv6)
        var table = Self.resolvedOnBothFamilies(ipv4: "10.0.0.2", ipv6: "fe80::2")

        let afterV6 = table.remove(v6)
        #expect(afterV6.first?.foundPeer?.endpoints == [Endpoint(host: "10.0.0.2", port: 4711)])
        let afterV4 = table.remove(v4)
        #expect(afterV4 == [.lost(ServiceInstance(name: "bob (ABCD-EFGH)", interface: "eth0"))])
        #expect(table.count == 0)
    }

    @Test func removingAnUnresolvedSlotEmitsNothing() {
        let v4 = Self.slot(.ipv4)
        var table = Self.admitted(v4)
        #expect(table.remove(v4).isEmpty)
        #expect(table.count == 0)
    }

    @Test func recordsWithOurOwnKeyAreDropped() {
        let v4 = Self.slot(.ipv4)
        var table = Self.admitted(v4)
        let outcome = table.resolve(
            v4, Self.resolution("10.0.0.2", txt: Self.txt(key: Self.ownKey)))
        #expect(outcome.dropped == .ownKey)
        #expect(outcome.events.isEmpty)
    }

    @Test func invalidTXTIsDroppedWithItsReason() {
        let v4 = Self.slot(.ipv4)
        var table = Self.admitted(v4)
        let bad = Self.txt() + [Array("id=AAAA".utf8)]
        let outcome = table.resolve(v4, Self.resolution("10.0.0.2", txt: bad))
        #expect(outcome.dropped == .invalidTXT(.duplicateKey("id")))
        #expect(outcome.events.isEmpty)
    }

    @Test func aValidRecordTurningInvalidIsLost() {
        let v4 = Self.slot(.ipv4)
        var table = Self.admitted(v4)
        _ = table.resolve(v4, Self.resolution("10.0.0.2"))
        let outcome = table.resolve(v4, Self.resolution("10.0.0.2", txt: [Array("txtvers=1".utf8)]))
        #expect(outcome.dropped == .invalidTXT(.missingWireVersion))
        #expect(outcome.events == [.lost(Self.slot(.ipv4).instance.serviceInstance)])
    }

    @Test func theSameNameOnTwoInterfacesIsTwoInstances() {
        let eth0 = Self.slot("bob (ABCD-EFGH)", on: "eth0", .ipv4)
        let wlan0 = Self.slot("bob (ABCD-EFGH)", on: "wlan0", .ipv4)
        var table = Self.admitted(eth0, wlan0)
        let first = table.resolve(eth0, Self.resolution("10.0.0.2"))
        let second = table.resolve(wlan0, Self.resolution("10.1.0.2"))
        #expect(first.events.first?.foundPeer?.instance.interface == "eth0")
        #expect(second.events.first?.foundPeer?.instance.interface == "wlan0")
        #expect(table.count == 2)
    }

    @Test func resultsForSlotsNeverAdmittedAreIgnored() {
        var table = InstanceTable(ownKey: Self.ownKey, capacity: 8)
        #expect(table.resolve(Self.slot(.ipv4), Self.resolution("10.0.0.2")) == .init())
        #expect(table.remove(Self.slot(.ipv4)).isEmpty)
    }

    @Test func admissionTellsNewTrackedAndFull() {
        var table = InstanceTable(ownKey: Self.ownKey, capacity: 2)
        #expect(table.admit(Self.slot("a", .ipv4)) == .admitted)
        #expect(table.admit(Self.slot("a", .ipv4)) == .alreadyTracked)
        #expect(table.admit(Self.slot("b", .ipv4)) == .admitted)
        #expect(table.admit(Self.slot("c", .ipv4)) == .full)
        // Another family of a tracked instance is not a new instance.
        #expect(table.admit(Self.slot("a", .ipv6)) == .admitted)
        _ = table.remove(Self.slot("b", .ipv4))
        #expect(table.admit(Self.slot("c", .ipv4)) == .admitted)
    }

    /// PROTOCOL.md §7.3 item 46: a flood of 10 000 services does not grow the table past its
    /// bound.
    @Test func aFloodOfServicesStaysBounded() {
        var table = InstanceTable(ownKey: Self.ownKey, capacity: 1_024)
        var admitted = 0
        for index in 0..<10_000 {
            let slot = Self.slot("flood-\(index)", .ipv4)
            if table.admit(slot) == .admitted {
                admitted += 1
                _ = table.resolve(slot, Self.resolution("10.0.\(index / 256 % 256).\(index % 256)"))
            }
        }
        #expect(admitted == 1_024)
        #expect(table.count == 1_024)
    }

    @Test func removeAllLosesEveryReportedInstanceOnly() {
        let reported = Self.slot("reported", .ipv4)
        let pending = Self.slot("pending", .ipv4)
        var table = Self.admitted(reported, pending)
        _ = table.resolve(reported, Self.resolution("10.0.0.2"))
        #expect(table.removeAll() == [.lost(reported.instance.serviceInstance)])
        #expect(table.count == 0)
    }

    /// A failed resolver leaves its slot tracked (the engine resolves it again) and reports
    /// the instance lost only when no other slot of it is resolved.
    @Test func aFailedResolveUnresolvesTheSlotButKeepsItTracked() throws {
        let v4 = Self.slot(.ipv4)
        let v6 = Self.slot(.ipv6)
        var table = Self.resolvedOnBothFamilies(ipv4: "169.254.0.2", ipv6: "fe80::1")

        let first = table.unresolve(v6)
        let onlyV4 = try #require(first.first?.foundPeer)
        #expect(onlyV4.endpoints == [Endpoint(host: "169.254.0.2", port: 4711)])
        #expect(table.unresolve(v4) == [.lost(v4.instance.serviceInstance)])
        #expect(table.count == 1)
        #expect(table.admit(v4) == .alreadyTracked)

        // The retry resolves it again: found once more.
        let again = table.resolve(v4, Self.resolution("169.254.0.2"))
        #expect(again.events.first?.foundPeer?.endpoints.count == 1)
        #expect(table.unresolve(Self.slot("nobody", .ipv4)).isEmpty)
    }
}
