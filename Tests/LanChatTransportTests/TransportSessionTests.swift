import Glibc
import LanChatCore
import LanChatCrypto
import LanChatTransport
import NIOCore
import Testing

@Suite("Transport sessions on loopback", .timeLimit(.minutes(1)))
struct TransportSessionTests {
    /// A refused connect is said in the system's words, which the daemon's "cannot reach"
    /// line quotes (found by QA: NIO's type names and an unbalanced "(errno: 111))").
    @Test func aRefusedConnectIsSaidInTheSystemsWords() async throws {
        // A port that was just free: bound, read, closed.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0
            }
        }
        close(probe)
        try #require(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let client = Transport(identity: try IdentityKeyPair.generate(), logger: testLogger)
        let outcome = await client.dial(
            Endpoint(host: "127.0.0.1", port: port), expectation: nil,
            delegate: RecordingDelegate())
        guard case .connectFailed(let error) = outcome else {
            Issue.record("a closed port was reached: \(outcome)")
            return
        }
        #expect(
            "\(error)".hasSuffix("cannot connect to 127.0.0.1:\(port): Connection refused"),
            "\(error)")
    }

    /// Both sides see the session open as soon as the handshake is done, without either
    /// sending anything more: the identity decision is answered by a write, and what the
    /// handler fired then reached the async side only with the next bytes read (the listener
    /// waited for a keepalive PING, seconds later). With no keepalive in the test's hour, a
    /// session not open after 20 s never will be: the wait is bounded so that the test fails
    /// rather than hangs.
    @Test func aSessionOpensOnBothSidesWithoutWaitingForMoreBytes() async throws {
        var configuration = fastConfiguration()
        configuration.keepaliveInterval = .seconds(3600)
        configuration.deadTimeout = .seconds(7200)
        let server = try await RunningListener.start(configuration: configuration)
        let clientDelegate = RecordingDelegate()
        let client = Transport(
            identity: try IdentityKeyPair.generate(), configuration: configuration,
            logger: testLogger)
        let dial = Task {
            await client.dial(
                server.endpoint, expectation: .pinned(server.transport.identity.publicKey),
                delegate: clientDelegate)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while server.delegate.openedSessions == 0 || clientDelegate.openedSessions == 0,
            clock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        try #require(server.delegate.openedSessions == 1, "the listener's session never opened")
        try #require(clientDelegate.openedSessions == 1, "the dialler's session never opened")
        let serverSession = try #require(await server.delegate.openedSession())
        let clientSession = try #require(await clientDelegate.openedSession())
        #expect(serverSession.info.sessionID == clientSession.info.sessionID)
        await clientSession.close(.shutdown)
        _ = await dial.value
        await server.stop()
    }

    @Test func twoNodesAuthenticateAndExchangeMessagesBothWays() async throws {
        // PINGs often, but no dead timer a stall of the loaded test process could fire before
        // the sockets are read (seen once in a full run: the server then saw the connection
        // lost instead of the client's CLOSE; as 0998c2d for the socket-option test).
        var configuration = keepaliveConfiguration()
        configuration.deadTimeout = .seconds(40)
        let server = try await RunningListener.start(configuration: configuration)
        defer { Task { await server.stop() } }
        let clientIdentity = try IdentityKeyPair.generate()
        let client = Transport(
            identity: clientIdentity, configuration: configuration, logger: testLogger)
        let clientDelegate = RecordingDelegate()
        let dial = Task {
            await client.dial(
                server.endpoint, expectation: .pinned(server.transport.identity.publicKey),
                delegate: clientDelegate)
        }
        let serverSession = try #require(
            await server.delegate.next { event in
                if case .opened(let session) = event { session } else { nil }
            })
        let clientSession = try #require(
            await clientDelegate.next { event in
                if case .opened(let session) = event { session } else { nil }
            })
        #expect(serverSession.remoteKey == clientIdentity.publicKey)
        #expect(clientSession.remoteKey == server.transport.identity.publicKey)
        #expect(serverSession.info.sessionID == clientSession.info.sessionID)

        // The largest text (65 536 bytes) needs two DATA fragments.
        let big = AppMessage.message(
            WireMessage(
                stream: 7, seq: 1, id: .random(), sentAt: 0,
                text: String(repeating: "x", count: 65_536)))
        try await clientSession.send([.typing(true), big])
        let atServer = await server.delegate.receivedMessages(count: 2)
        #expect(atServer.count == 2)
        #expect(atServer.first == .typing(true))
        #expect(atServer.last == big, "the 65 536-byte text did not arrive intact")
        serverSession.sendControl([.ack(stream: 1, delivered: 2)])
        let atClient = await clientDelegate.next { event in
            if case .received(_, let messages) = event { messages } else { nil }
        }
        #expect(atClient == [.ack(stream: 1, delivered: 2)])

        await clientSession.close(.shutdown)
        let serverEnd = await server.delegate.next { event in
            if case .closed(_, let end) = event { "\(end)" } else { nil }
        }
        #expect(serverEnd == "closed by the peer (shutdown)")
        guard case .sessionEnded(let key, _, .closedLocally(.shutdown)) = await dial.value else {
            Issue.record("the dial did not end with our own CLOSE")
            return
        }
        #expect(key == server.transport.identity.publicKey)
    }

    /// Both ends of a session turn Nagle off (TCP_NODELAY at the TCP level) and set no
    /// socket-level option an ordinary user may not: the same number at SOL_SOCKET is
    /// SO_DEBUG, which needs CAP_NET_ADMIN, and asking for it made every connection fail
    /// for a daemon not run as root.
    @Test func sessionSocketsSetNoDelayAndNothingPrivileged() async throws {
        // PINGs often, but no dead timer a stall of this process could fire before the
        // sockets are read.
        var configuration = keepaliveConfiguration()
        configuration.deadTimeout = .seconds(40)
        let server = try await RunningListener.start(configuration: configuration)
        defer { Task { await server.stop() } }
        let (clientSession, dial) = try await dialOpened(server, configuration: configuration)
        _ = await server.delegate.openedSession()
        let sockets = connectedSockets(port: server.endpoint.port)
        #expect(sockets.count == 2, "the dialled and the accepted socket")
        for fd in sockets {
            #expect(socketOption(fd, level: Int32(IPPROTO_TCP), TCP_NODELAY) == 1)
            #expect(socketOption(fd, level: SOL_SOCKET, SO_DEBUG) == 0)
        }
        await clientSession.close(.shutdown)
        _ = await dial.value
    }

    @Test func aPinnedKeyMismatchAbortsBeforeMsg3AndTheListenerKeepsServing() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        let client = Transport(
            identity: try IdentityKeyPair.generate(), configuration: fastConfiguration(),
            logger: testLogger)
        let expected = try IdentityKeyPair.generate().publicKey
        let clientDelegate = RecordingDelegate { remote in
            .failure(.pinnedKeyMismatch(expected: expected, presented: remote))
        }
        let outcome = await client.dial(
            server.endpoint, expectation: .pinned(expected), delegate: clientDelegate)
        guard case .identityRejected(.pinnedKeyMismatch(expected, _)) = outcome else {
            Issue.record("expected a key mismatch, got \(outcome)")
            return
        }
        // The responder never saw msg3, so it never learned who dialled.
        #expect(server.delegate.events.isEmpty)
        #expect(clientDelegate.openedSessions == 0)

        // The listener keeps serving: the next, honest dial gets a session.
        let delegate = RecordingDelegate()
        let dial = Task { await client.dial(server.endpoint, expectation: nil, delegate: delegate) }
        let session = try #require(
            await delegate.next { event in if case .opened(let s) = event { s } else { nil } })
        await session.close(.normal)
        _ = await dial.value
        #expect(await server.delegate.openedSession()?.remoteKey == client.identity.publicKey)
    }

    @Test func aSessionOpenedAfterAnAttackStillWorks() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        // Garbage first.
        _ = try await RawConnection.connect(to: server.endpoint).run { _, outbound in
            try await outbound.write(bytes: Array("GET / HTTP/1.0\r\n\r\n".utf8))
        }
        let client = Transport(
            identity: try IdentityKeyPair.generate(), configuration: fastConfiguration(),
            logger: testLogger)
        let delegate = RecordingDelegate()
        let dial = Task { await client.dial(server.endpoint, expectation: nil, delegate: delegate) }
        let session = try #require(
            await delegate.next { event in if case .opened(let s) = event { s } else { nil } })
        await session.close(.normal)
        _ = await dial.value
        #expect(await server.delegate.openedSession()?.remoteKey == client.identity.publicKey)
    }

    @Test func keepalivesHoldAnIdleSessionOpenPastTheDeadTimeout() async throws {
        let server = try await RunningListener.start(configuration: keepaliveConfiguration())
        defer { Task { await server.stop() } }
        let client = Transport(
            identity: try IdentityKeyPair.generate(), configuration: keepaliveConfiguration(),
            logger: testLogger)
        let delegate = RecordingDelegate()
        let dial = Task { await client.dial(server.endpoint, expectation: nil, delegate: delegate) }
        let session = try #require(
            await delegate.next { event in if case .opened(let s) = event { s } else { nil } })
        // Three dead timeouts of silence from the application: PING/PONG keep it alive.
        try await Task.sleep(
            for: .nanoseconds(keepaliveConfiguration().deadTimeout.nanoseconds * 3))
        #expect(!server.delegate.events.contains { if case .closed = $0 { true } else { false } })
        await session.close(.normal)
        _ = await dial.value
    }
}

/// The dead timeout is about the peer, not about us: a consumer that holds reads back (the
/// daemon storing behind a slow disk) must not have its session declared dead meanwhile.
@Suite("Dead timeout under our own backpressure", .timeLimit(.minutes(1)))
struct BackpressureDeadTimeoutTests {
    @Test func aConsumerThatHoldsReadsBackKeepsItsSession() async throws {
        let stalling = StallingDelegate()
        let (session, dial, stop) = try await StallingDelegate.dialed(
            stalling, keepaliveConfiguration())
        // 8 MiB in 128 sends: the server's consumer blocks on the first batch, the rest fills
        // its event buffer and its socket, so it stops reading (our PINGs go unread too).
        let sending = Task {
            for seq in 1...128 {
                try await session.send([
                    .message(
                        WireMessage(
                            stream: 1, seq: UInt64(seq), id: .random(), sentAt: 0,
                            text: String(repeating: "x", count: 65_536)))
                ])
            }
        }
        // Three dead timeouts of held-back reads; then the consumer goes on.
        try await Task.sleep(
            for: .nanoseconds(keepaliveConfiguration().deadTimeout.nanoseconds * 3))
        stalling.release()
        // Declared dead, the server would have closed the connection: the sends would fail
        // and our session would end by the server's CLOSE, not by ours.
        let sent = await sending.result
        #expect((try? sent.get()) != nil, "the sends failed: \(sent)")
        await session.close(.normal)
        let end = await dial.value
        await stop()
        guard case .sessionEnded(_, _, .closedLocally(.normal)) = end else {
            Issue.record("the session ended otherwise: \(end)")
            return
        }
    }
}

/// A delegate whose peer stops reading: the first batch it receives is never finished, so
/// the connection reads nothing more (backpressure) until `release()`.
final class StallingDelegate: SessionDelegate {
    let recorder = RecordingDelegate()
    private let gate: AsyncStream<Void>
    private let opener: AsyncStream<Void>.Continuation

    init() {
        (gate, opener) = AsyncStream.makeStream(of: Void.self)
    }

    func release() { opener.finish() }

    /// A listener with `stalling` as its delegate and a client session dialled to it; `stop`
    /// ends the listener.
    static func dialed(_ stalling: StallingDelegate, _ configuration: TransportConfiguration)
        async throws -> (
            session: SessionHandle, dial: Task<Transport.DialOutcome, Never>,
            stop: @Sendable () async -> Void
        )
    {
        let server = Transport(
            identity: try IdentityKeyPair.generate(), configuration: configuration,
            logger: testLogger)
        let listener = try await server.listen(host: "127.0.0.1", port: 0)
        let serving = Task<Void, Never> { _ = try? await listener.run(delegate: stalling) }
        let client = Transport(
            identity: try IdentityKeyPair.generate(), configuration: configuration,
            logger: testLogger)
        let clientDelegate = RecordingDelegate()
        let dial = Task {
            await client.dial(
                Endpoint(host: "127.0.0.1", port: listener.port), expectation: nil,
                delegate: clientDelegate)
        }
        let session = try #require(await clientDelegate.openedSession())
        return (
            session, dial,
            {
                serving.cancel()
                await listener.close()
                await serving.value
            }
        )
    }

    func authorize(_ remote: PeerKey, connection: ConnectionInfo) async
        -> Result<Void, IdentityPolicy.Rejection>
    {
        await recorder.authorize(remote, connection: connection)
    }

    func sessionOpened(_ session: SessionHandle) async { await recorder.sessionOpened(session) }

    func session(_ session: SessionHandle, received messages: [AppMessage]) async {
        for await _ in gate {}
    }

    func sessionClosed(_ session: SessionHandle, end: SessionEnd) async {
        await recorder.sessionClosed(session, end: end)
    }
}

@Suite("Closing a session", .timeLimit(.minutes(1)))
struct SessionCloseTests {
    /// A clean stop must not wait for a peer that stopped reading: CLOSE is queued behind
    /// megabytes it will not take, so the connection is closed after the grace period.
    @Test func closeReturnsEvenWhenThePeerStoppedReading() async throws {
        let stalling = StallingDelegate()
        // Timers long enough that only the grace period can end the close.
        var configuration = fastConfiguration()
        configuration.keepaliveInterval = .seconds(20)
        configuration.deadTimeout = .seconds(60)
        let (session, dial, stop) = try await StallingDelegate.dialed(stalling, configuration)
        // 32 MiB: far beyond both kernel buffers, so most of it waits in the channel.
        let big = (1...512).map { seq in
            AppMessage.message(
                WireMessage(
                    stream: 1, seq: UInt64(seq), id: .random(), sentAt: 0,
                    text: String(repeating: "x", count: 65_536)))
        }
        try await session.send(big)
        await session.close(.shutdown)
        let end = await dial.value
        stalling.release()
        await stop()
        guard case .sessionEnded(_, _, .closedLocally(.shutdown)) = end else {
            Issue.record("the dial did not end with our own close: \(end)")
            return
        }
    }
}
