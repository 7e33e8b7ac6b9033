import LanChatCore
import LanChatCrypto
import LanChatStore
import Synchronization
import Testing

@testable import LanChatDaemon
@testable import LanChatTransport

/// PROTOCOL.md §4.6 under a flood: when admission refuses connections from an address, a known
/// peer last reached there and without a session is dialled back at once (our dial budget is
/// not the flood's to take), at most once a second per address, and never a blocked one.
@Suite struct DialBackTests {
    final class ManualClock: Sendable {
        let now = Mutex(ContinuousClock.now)
        var daemonClock: DaemonClock {
            DaemonClock(
                wallMilliseconds: { 1_000 }, monotonic: { self.now.withLock { $0 } },
                sleepUntil: { _ in try await Task.sleep(for: .seconds(3600)) })
        }
        func advance(_ duration: Duration) { now.withLock { $0 += duration } }
    }

    static func key(_ fill: UInt8) throws -> PeerKey {
        try #require(PeerKey(bytes: [UInt8](repeating: fill, count: 31) + [0x01]))
    }

    /// A connection manager over `records`, on `clock`, with nothing dialled yet.
    static func manager(records: [PeerRecord], store: MessageStore, clock: ManualClock) throws
        -> ConnectionManager
    {
        let directory = PeerDirectory(
            ownKey: try key(0x11), records: records, persistence: InMemoryPeerPersistence(records))
        let services = LinkServices(
            store: store, directory: directory, events: EventBus(), profile: OwnProfile(name: "me"),
            logger: quietLogger, readReceipts: true, clock: clock.daemonClock)
        return ConnectionManager(
            transport: Transport(identity: try IdentityKeyPair.generate(), logger: quietLogger),
            registry: LinkRegistry(services: services), directory: directory,
            clock: clock.daemonClock, logger: quietLogger, discoveryState: .disabled)
    }

    @Test func aKnownPeerRefusedDuringAFloodIsDialledBackOnceASecond() async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let store = try MessageStore.open(path: root.path + "/lanchat.sqlite3")
        defer { try? store.close() }
        let clock = ManualClock()
        let known = try Self.key(0x21)
        let elsewhere = try Self.key(0x22)
        let blocked = try Self.key(0x23)
        let flooded = Endpoint(host: "10.9.9.9", port: 7000)
        let records = [
            PeerRecord(
                key: known, keyTag: "KNOW-NPEE", name: "known", firstSeen: 1, addresses: [flooded]),
            PeerRecord(
                key: elsewhere, keyTag: "ELSE-WHER", name: "elsewhere", firstSeen: 1,
                addresses: [Endpoint(host: "10.8.8.8", port: 7000)]),
            PeerRecord(
                key: blocked, keyTag: "BLOC-KEDP", name: "blocked", trust: .blocked, firstSeen: 1,
                addresses: [flooded]),
        ]
        let manager = try Self.manager(records: records, store: store, clock: clock)

        let first = clock.now.withLock { $0 }
        await manager.inboundRefused(from: "10.9.9.9")
        #expect(await manager.nextAttempt(for: known) == first)
        #expect(await manager.nextAttempt(for: elsewhere) == nil)
        #expect(await manager.nextAttempt(for: blocked) == nil)
        #expect(await manager.targetCount == 1)

        // More refusals within the same second change nothing (the target would otherwise
        // be brought to the later instant); the next second brings it forward again.
        clock.advance(.milliseconds(500))
        await manager.inboundRefused(from: "10.9.9.9")
        #expect(await manager.nextAttempt(for: known) == first)
        #expect(await manager.targetCount == 1)
        clock.advance(.milliseconds(600))
        await manager.inboundRefused(from: "10.9.9.9")
        #expect(await manager.nextAttempt(for: known) == clock.now.withLock { $0 })
    }
}

/// A static peer (`--peer`) that stops cleanly is dialled again from the backoff's start,
/// whatever failed before (found by QA: after a few restarts in a row, 2 s, 8 s, 32 s, 2 min,
/// then 5 min); a peer found over mDNS waits for its record to come back.
@Suite struct StaticPeerRestartTests {
    @Test(arguments: [nil, "eth0"])
    func aStaticPeerThatStoppedCleanlyIsDialledAgainSoon(interface: String?) async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let store = try MessageStore.open(path: root.path + "/lanchat.sqlite3")
        defer { try? store.close() }
        let clock = DialBackTests.ManualClock()
        let manager = try DialBackTests.manager(records: [], store: store, clock: clock)
        let key = try DialBackTests.key(0x31)
        let instance = ServiceInstance(name: "peer", interface: interface)
        let endpoint = Endpoint(host: "10.7.7.7", port: 7000)
        await manager.handle(
            .found(
                DiscoveredPeer(
                    instance: instance, hostName: "", endpoints: [endpoint],
                    announcement: PeerAnnouncement(
                        key: key, maxVersion: 1, status: .available, statusText: ""))))
        // Dials that failed before: the backoff is up to minutes.
        for _ in 0..<8 {
            await manager.finished(
                instance, endpoint: endpoint,
                outcome: .connectFailed(TransportError(.connectFailed, "refused")))
        }
        let start = clock.now.withLock { $0 }
        await manager.sessionEnded(
            with: key, end: .closedByPeer(.shutdown), lifetime: .seconds(5))
        let next = try #require(await manager.nextAttempt(for: key))
        if interface == nil {
            #expect(next - start <= .milliseconds(1_250), "\(next - start)")
        } else {
            // mDNS will say when it is back: no hurry.
            #expect(next - start > .seconds(60), "\(next - start)")
        }
    }
}
