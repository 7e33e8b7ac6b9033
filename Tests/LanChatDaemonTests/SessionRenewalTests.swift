import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon
@testable import LanChatTransport

/// After a rename the connection manager dials each peer with a session once more, so that a
/// new session's HELLO carries the name (PROTOCOL.md §3.9's planned re-handshake). The
/// end-to-end test `aRenameReachesThePeersWithoutAnOfflineBlip` shows the peer learning it;
/// these pin down whom is dialled, where and when.
@Suite struct SessionRenewalTests {
    typealias ManualClock = DialBackTests.ManualClock

    @Test func aSessionWeDialledIsRenewedAtOnceOneThePeerDialledAfterTheDialWindow() {
        #expect(LinkRegistry.renewalDelay(age: .milliseconds(5), dialledByUs: true) == .zero)
        #expect(LinkRegistry.renewalDelay(age: .seconds(600), dialledByUs: true) == .zero)
        // The peer's young session would win over ours as a simultaneous dial if its key is
        // the smaller one: wait until it is past the window, with a second of margin.
        #expect(LinkRegistry.renewalDelay(age: .seconds(3), dialledByUs: false) == .seconds(8))
        #expect(LinkRegistry.renewalDelay(age: .seconds(11), dialledByUs: false) == .zero)
        #expect(LinkRegistry.renewalDelay(age: .seconds(60), dialledByUs: false) == .zero)
    }

    @Test func scheduledPeersWithAnAddressAreDialledOnceMoreOthersKeepTheirSession() async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let store = try MessageStore.open(path: root.path + "/lanchat.sqlite3")
        defer { try? store.close() }
        let clock = ManualClock()
        let reachable = try DialBackTests.key(0x31)
        let addressless = try DialBackTests.key(0x32)
        let blocked = try DialBackTests.key(0x33)
        let address = Endpoint(host: "10.9.9.1", port: 7000)
        let records = [
            PeerRecord(
                key: reachable, keyTag: "REAC-HABL", name: "reachable", firstSeen: 1,
                addresses: [address]),
            PeerRecord(key: addressless, keyTag: "ADDR-LESS", name: "addressless", firstSeen: 1),
            PeerRecord(
                key: blocked, keyTag: "BLOC-KEDP", name: "blocked", trust: .blocked, firstSeen: 1,
                addresses: [Endpoint(host: "10.9.9.3", port: 7000)]),
        ]
        let manager = try DialBackTests.manager(records: records, store: store, clock: clock)

        let now = clock.now.withLock { $0 }
        let renewing = await manager.renewSessions([
            (reachable, .seconds(4)), (addressless, .zero), (blocked, .zero),
        ])
        #expect(renewing == [reachable])
        #expect(await manager.nextAttempt(for: reachable) == now + .seconds(4))
        #expect(await manager.nextAttempt(for: addressless) == nil)
        #expect(await manager.nextAttempt(for: blocked) == nil)

        // A second rename before the dial replaces the pending renewal (it will carry the
        // newest name anyway) rather than dialling twice.
        clock.advance(.seconds(1))
        #expect(await manager.renewSessions([(reachable, .zero)]) == [reachable])
        #expect(await manager.targetCount == 1)
        #expect(await manager.nextAttempt(for: reachable) == now + .seconds(1))

        // Refused (the peer's rate limit): dialled again with the backoff, not given up on
        // (found by QA: the peer kept an old name). A session made ends the renewal.
        let instance = ServiceInstance(name: "renewal:2:\(reachable.id)", interface: nil)
        await manager.finished(
            instance, endpoint: address,
            outcome: .handshakeFailed(
                TransportError(.handshakeFailed, "closed during the handshake")))
        let retry = try #require(await manager.nextAttempt(for: reachable))
        #expect(retry > clock.now.withLock { $0 })
        await manager.finished(
            instance, endpoint: address,
            outcome: .sessionEnded(
                remoteKey: reachable, lifetime: .seconds(1), end: .closedLocally(.normal)))
        #expect(await manager.nextAttempt(for: reachable) == nil)
        #expect(await manager.targetCount == 0)
    }
}
