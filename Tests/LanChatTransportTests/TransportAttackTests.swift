import LanChatCore
import LanChatCrypto
import NIOCore
import Testing

@testable import LanChatTransport

/// PROTOCOL.md §7.1–§7.2 against a real listener: each attack closes the connection, never
/// yields a session or a message, and the listener goes on serving honest peers.
@Suite("Transport under attack (PROTOCOL.md §7)", .timeLimit(.minutes(1)))
struct TransportAttackTests {
    /// §7.1 8: the responder closes without writing a byte.
    @Test func badMagicIsClosedWithoutAnswering() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        let answer = try await RawConnection.connect(to: server.endpoint).run { _, outbound in
            try await outbound.write(bytes: Array("XXXX".utf8) + [1, 1, 0, 0, 0, 32])
        }
        #expect(answer.isEmpty)
        #expect(server.delegate.events.isEmpty)
    }

    /// §7.1 13 and the acceptance's "oversized length": closed before the body is read.
    @Test(arguments: [0, 31, 33, 65_535])
    func anOutOfBoundsFirstMessageLengthIsClosed(length: Int) async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        let answer = try await RawConnection.connect(to: server.endpoint).run { _, outbound in
            try await outbound.write(
                bytes: [
                    0x4C, 0x43, 0x48, 0x54, 1, 1, 0, 0, UInt8(length >> 8), UInt8(length & 0xFF),
                ])
        }
        #expect(answer.isEmpty)
        #expect(server.delegate.events.isEmpty)
    }

    /// §7.1 4 and 15: a replayed first flight gets a fresh msg2, but without msg3 the
    /// deadline closes the connection; a silent connection is closed by the read timeout.
    /// All three wait for the server's timers, so they run side by side. Each `run` reads
    /// until the server closes; a server that never did would hit the suite's time limit.
    @Test func aReplayedFirstFlightAndASilentConnectionNeverBecomeSessions() async throws {
        let server = try await RunningListener.start(configuration: handshakeTimerConfiguration())
        defer { Task { await server.stop() } }
        var handshake = ChannelHandshake(role: .initiator, identity: try IdentityKeyPair.generate())
        let start = handshake.start()
        guard case .needMore(let firstFlight) = consume start else {
            Issue.record("no first flight")
            return
        }
        let endpoint = server.endpoint
        async let firstReply = RawConnection.connect(to: endpoint).run { _, outbound in
            try await outbound.write(bytes: firstFlight)
        }
        async let secondReply = RawConnection.connect(to: endpoint).run { _, outbound in
            try await outbound.write(bytes: firstFlight)
        }
        async let silent = RawConnection.connect(to: endpoint).run { _, _ in }
        let replies = try await [firstReply, secondReply]
        #expect(replies.allSatisfy { $0.count == 2 + 108 })
        #expect(replies[0] != replies[1])  // a fresh ephemeral each time
        #expect(try await silent.isEmpty)
        #expect(server.delegate.events.isEmpty)
    }

    /// §7.1 5: msg3 recorded from an honest handshake is useless against a new responder
    /// ephemeral.
    @Test func aReplayedMsg3IsRejected() async throws {
        // The honest session ends when its raw client closes the connection. (Left to the
        // dead timer, 1 s, a stall of the test process between its handshake writes on a
        // loaded machine let the server close first: "I/O on closed channel".)
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        let identity = try IdentityKeyPair.generate()
        var recorded: [[UInt8]] = []
        _ = try await RawConnection.connect(to: server.endpoint).run(readToEnd: false) {
            iterator, outbound in
            _ = try await handshakeAsInitiator(
                identity: identity, iterator: &iterator, outbound: outbound, written: &recorded)
        }
        // The server reports the session on its own event loop, maybe after our side is done.
        _ = await server.delegate.openedSession()
        #expect(server.delegate.openedSessions == 1)
        // recorded[0] is the first flight; recorded[1] is msg3 followed by our stream header.
        let replayed = try await RawConnection.connect(to: server.endpoint).run {
            iterator, outbound in
            try await outbound.write(bytes: recorded[0])
            var buffer: [UInt8] = []
            _ = try await read(110, from: &iterator, buffer: &buffer)
            try await outbound.write(bytes: recorded[1])
        }
        #expect(replayed.isEmpty)
        #expect(server.delegate.openedSessions == 1)
    }

    /// §7.2 21: one flipped bit in a DATA frame closes the session; nothing of it arrives.
    @Test func aFlippedBitInATransportFrameClosesTheSession() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        let identity = try IdentityKeyPair.generate()
        var written: [[UInt8]] = []
        _ = try await RawConnection.connect(to: server.endpoint).run { iterator, outbound in
            guard
                var halves = try await handshakeAsInitiator(
                    identity: identity, iterator: &iterator, outbound: outbound,
                    written: &written)
            else {
                Issue.record("handshake failed")
                return
            }
            var frame: [UInt8] = []
            try halves.sealer.sealMessage(
                AppMessage.typing(true).encoded(), now: .now, into: &frame)
            frame[frame.count / 2] ^= 0x10
            try await outbound.write(bytes: frame)
        }
        let end = await server.delegate.next { event in
            if case .closed(_, let end) = event { end } else { nil }
        }
        guard case .failed(let error) = end else {
            Issue.record("the session did not fail: \(String(describing: end))")
            return
        }
        #expect(error.kind == .channelFailed)
        #expect(!server.delegate.events.contains { if case .received = $0 { true } else { false } })
    }

    /// §7.2 28: EOF without CLOSE is "connection lost, possibly truncated".
    @Test func endOfStreamWithoutCloseIsReportedAsPossiblyTruncated() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        var written: [[UInt8]] = []
        _ = try await RawConnection.connect(to: server.endpoint).run(readToEnd: false) {
            iterator, outbound in
            _ = try await handshakeAsInitiator(
                identity: try IdentityKeyPair.generate(), iterator: &iterator,
                outbound: outbound, written: &written)
        }
        let end = await server.delegate.next { event in
            if case .closed(_, let end) = event { end } else { nil }
        }
        guard case .failed(let error) = end else {
            Issue.record("expected a failure, got \(String(describing: end))")
            return
        }
        #expect(error.kind == .connectionLost)
        #expect(error.description == "connection lost, possibly truncated")
    }

    /// §7.2 30: a frame whose tag does not match its type (DATA with FINAL).
    @Test func aTagTypeMismatchClosesTheSession() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        var written: [[UInt8]] = []
        _ = try await RawConnection.connect(to: server.endpoint).run { iterator, outbound in
            guard
                var halves = try await handshakeAsInitiator(
                    identity: try IdentityKeyPair.generate(), iterator: &iterator,
                    outbound: outbound, written: &written)
            else { return }
            var frame: [UInt8] = []
            try halves.sealer.sealRawFrameForTesting(
                type: 0x01, flags: 0x01, body: AppMessage.typing(true).encoded(),
                tag: StreamTag.final.rawValue, into: &frame)
            try await outbound.write(bytes: frame)
        }
        let end = await server.delegate.next { event in
            if case .closed(_, let end) = event { end } else { nil }
        }
        guard case .failed(let error) = end else {
            Issue.record("expected a failure, got \(String(describing: end))")
            return
        }
        #expect(error.kind == .channelFailed)
    }

    /// A port probe (`lanchat doctor`, `nc -z`) connects and closes without sending a byte.
    /// It cost no handshake, so it is no failed one: after more probes than the penalty
    /// allows (five failures), the same address still gets its handshake answered.
    @Test func portProbesCountNoFailedHandshakes() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        for probe in 1...8 {
            _ = try await RawConnection.connect(to: server.endpoint).run(readToEnd: false) { _, _ in
            }
            // The listener is done with it: its slot is back, a failure counted or not. (A
            // loaded machine stalls this for seconds: the whole run's tests took 17 s once.)
            try await until("probe \(probe) finished", timeout: .seconds(30)) {
                server.transport.admission.finishedCount >= probe
            }
        }
        var handshake = ChannelHandshake(role: .initiator, identity: try IdentityKeyPair.generate())
        let start = handshake.start()
        guard case .needMore(let firstFlight) = consume start else {
            Issue.record("no first flight")
            return
        }
        let reply = try await RawConnection.connect(to: server.endpoint).run(readToEnd: false) {
            iterator, outbound in
            try await outbound.write(bytes: firstFlight)
            var buffer: [UInt8] = []
            #expect(try await read(110, from: &iterator, buffer: &buffer).count == 110)
        }
        #expect(reply.isEmpty)
    }

    /// A blocked key redialling (with its backoff) is refused at msg3 each time, yet that is
    /// no failed handshake: the address it shares with other users (one host, several
    /// daemons) is not penalised, and another key from it still gets its session.
    @Test func aBlockedKeysRefusalsDoNotPenaliseItsAddress() async throws {
        let blocked = try IdentityKeyPair.generate()
        let server = try await RunningListener.start(
            delegate: RecordingDelegate { remote in
                remote == blocked.publicKey ? .failure(.blocked) : .success(())
            })
        defer { Task { await server.stop() } }
        let dialler = Transport(
            identity: blocked, configuration: fastConfiguration(), logger: testLogger)
        for attempt in 1...8 {
            let outcome = await dialler.dial(
                server.endpoint, expectation: nil, delegate: RecordingDelegate())
            if case .sessionEnded = outcome { Issue.record("attempt \(attempt) got a session") }
            try await until("attempt \(attempt) finished", timeout: .seconds(30)) {
                server.transport.admission.finishedCount >= attempt
            }
        }
        let neighbour = Transport(
            identity: try IdentityKeyPair.generate(), configuration: fastConfiguration(),
            logger: testLogger)
        let delegate = RecordingDelegate()
        let dial = Task {
            await neighbour.dial(server.endpoint, expectation: nil, delegate: delegate)
        }
        let session = try #require(await delegate.openedSession())
        await session.close(.normal)
        _ = await dial.value
    }

    /// Issue 9 item 4, §4.6: 40 handshakes from one address, each abandoned right after msg2.
    /// Before the token bucket and the failure penalty every one got a msg2 (two X25519
    /// operations each); now at most the bucket's burst does, and after five failures the
    /// address is refused at once.
    @Test func abandonedHandshakesFromOneAddressAreRateLimited() async throws {
        let server = try await RunningListener.start()
        defer { Task { await server.stop() } }
        var answered = 0
        for _ in 0..<40 {
            var handshake = ChannelHandshake(
                role: .initiator, identity: try IdentityKeyPair.generate())
            let start = handshake.start()
            guard case .needMore(let firstFlight) = consume start else {
                Issue.record("no first flight")
                return
            }
            // A refused connection is closed or reset at once: that is no answer.
            _ = try? await RawConnection.connect(to: server.endpoint).run(readToEnd: false) {
                iterator, outbound in
                try await outbound.write(bytes: firstFlight)
                var buffer: [UInt8] = []
                if try await read(110, from: &iterator, buffer: &buffer).count == 110 {
                    answered += 1
                }
            }
        }
        #expect(answered >= 5, "the first handshakes are served")
        #expect(answered <= 10, "\(answered) of 40 abandoned handshakes got msg2")
        #expect(server.delegate.events.isEmpty)
    }
}
