import LanChatCore
import LanChatCrypto
import LanChatTransport
import NIOCore
import Testing

@Suite("Transport sessions on loopback", .timeLimit(.minutes(1)))
struct TransportSessionTests {
    @Test func twoNodesAuthenticateAndExchangeMessagesBothWays() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        let clientIdentity = try IdentityKeyPair.generate()
        let client = Transport(
            identity: clientIdentity, configuration: fastConfiguration(), logger: testLogger)
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
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        let client = Transport(
            identity: try IdentityKeyPair.generate(), configuration: fastConfiguration(),
            logger: testLogger)
        let delegate = RecordingDelegate()
        let dial = Task { await client.dial(server.endpoint, expectation: nil, delegate: delegate) }
        let session = try #require(
            await delegate.next { event in if case .opened(let s) = event { s } else { nil } })
        // Three dead timeouts of silence from the application: PING/PONG keep it alive.
        try await Task.sleep(for: .milliseconds(1_200))
        #expect(!server.delegate.events.contains { if case .closed = $0 { true } else { false } })
        await session.close(.normal)
        _ = await dial.value
    }
}
