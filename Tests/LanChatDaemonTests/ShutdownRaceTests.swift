import LanChatCore
import LanChatCrypto
import LanChatStore
import LanChatTransport
import Synchronization
import Testing

@testable import LanChatDaemon

/// A clean stop while a session is still starting (found by review): `sessionOpened` passed
/// its "refusing?" check, then waited for the store to pin a first contact; the stop began
/// meanwhile, and `closeAll`, which closed only the sessions already counted, waited for
/// that one for ever, while its keepalives kept it up.
@Suite(.timeLimit(.minutes(1)))
struct ShutdownRaceTests {
    /// Holds every first-contact pin until released; says when one is waiting.
    final class Gate: Sendable {
        private let state = Mutex<
            (entered: Bool, released: Bool, waiters: [CheckedContinuation<Void, Never>])
        >(
            (false, false, []))

        func pass() async {
            await withCheckedContinuation { waiter in
                let open = state.withLock { state in
                    state.entered = true
                    if state.released { return true }
                    state.waiters.append(waiter)
                    return false
                }
                if open { waiter.resume() }
            }
        }

        var entered: Bool { state.withLock { $0.entered } }

        func release() {
            let waiters = state.withLock { state in
                state.released = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    @Test func aSessionStillBeingPinnedWhenTheStopBeginsIsClosedAndTheStopEnds() async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let store = try MessageStore.open(path: root.path + "/lanchat.sqlite3")
        defer { try? store.close() }
        let gate = Gate()
        let identity = try IdentityKeyPair.generate()
        let directory = PeerDirectory(
            ownKey: identity.publicKey, records: [],
            persistence: InMemoryPeerPersistence(beforeSeen: { await gate.pass() }))
        let services = LinkServices(
            store: store, directory: directory, events: EventBus(), profile: OwnProfile(name: "me"),
            logger: quietLogger, readReceipts: true, clock: .system)
        let registry = LinkRegistry(services: services)
        // The dialling side: a registry of its own, whose pins are not held.
        let clientIdentity = try IdentityKeyPair.generate()
        let clientRegistry = LinkRegistry(
            services: LinkServices(
                store: store,
                directory: PeerDirectory(
                    ownKey: clientIdentity.publicKey, records: [],
                    persistence: InMemoryPeerPersistence()),
                events: EventBus(), profile: OwnProfile(name: "dialler"), logger: quietLogger,
                readReceipts: true, clock: .system))
        let server = Transport(identity: identity, logger: quietLogger)
        let listener = try await server.listen(host: "127.0.0.1", port: 0)
        let accepting = Task { _ = try? await listener.run(delegate: registry) }
        let client = Transport(identity: clientIdentity, logger: quietLogger)
        let dial = Task {
            await client.dial(
                Endpoint(host: "127.0.0.1", port: listener.port),
                expectation: .pinned(identity.publicKey), delegate: clientRegistry)
        }
        defer {
            dial.cancel()
            accepting.cancel()
        }
        while !gate.entered { try await Task.sleep(for: .milliseconds(1)) }

        registry.refuseNewSessions()
        let stopped = Task { await registry.closeAll(.shutdown) }
        gate.release()
        // Without the fix the stop never returns; the suite's time limit ends the test then.
        await stopped.value
        // The dialler heard CLOSE(shutdown): the session did not merely time out.
        guard case .sessionEnded(_, _, .closedByPeer(let reason)) = await dial.value else {
            Issue.record("the session did not end with the stop's CLOSE")
            return
        }
        #expect(reason == .shutdown)
        await listener.close()
    }
}
