import LanChatCore
import LanChatCrypto
import LanChatStore
import Testing

@testable import LanChatDaemon
@testable import LanChatTransport

/// PROTOCOL.md §4.6: the redial backoff resets after a session that lived 60 s, whichever
/// side dialled it. A short session, or a peer that shut down, leaves it as it was.
@Suite struct RedialAfterSessionTests {
    @Test func aLongSessionThatDiesIsRedialledInAboutASecond() async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let store = try MessageStore.open(path: root.path + "/lanchat.sqlite3")
        defer { try? store.close() }
        let clock = DialBackTests.ManualClock()
        let peer = try DialBackTests.key(0x31)
        let records = [
            PeerRecord(
                key: peer, keyTag: "PEER-THIR", name: "peer", firstSeen: 1,
                addresses: [Endpoint(host: "10.7.7.7", port: 7000)])
        ]
        let manager = try DialBackTests.manager(records: records, store: store, clock: clock)
        await manager.wantSession(with: peer)
        func delay() async throws -> Duration {
            let next = try #require(await manager.nextAttempt(for: peer))
            return clock.now.withLock { now in now.duration(to: next) }
        }

        // The peer shut down five times: the backoff grows to 2^5 s (± 25 %).
        for _ in 1...6 {
            await manager.sessionEnded(
                with: peer, end: .closedByPeer(.shutdown), lifetime: .seconds(1))
        }
        #expect(try await delay() >= .seconds(24))
        // A short session that failed does not reset it.
        await manager.sessionEnded(
            with: peer, end: .failed(TransportError(.connectionLost, "reset")),
            lifetime: .seconds(5))
        #expect(try await delay() >= .seconds(24))
        // A session that lived a minute and died: about a second.
        await manager.sessionEnded(
            with: peer, end: .failed(TransportError(.connectionLost, "dead timeout")),
            lifetime: .seconds(61))
        let redial = try await delay()
        #expect(redial >= .milliseconds(750) && redial <= .milliseconds(1_250))
    }
}
