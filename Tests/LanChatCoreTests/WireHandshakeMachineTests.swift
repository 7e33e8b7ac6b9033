import LanChatCore
import LanChatTestSupport
import Testing

/// The handshake state machine over `PlaintextNoise`: the PROTOCOL.md §7.1 rules that do not
/// need real cryptography (preamble, versions, lengths, payloads, chunking).
@Suite struct WireHandshakeMachineTests {
    let initiatorNoise: PlaintextNoise
    let responderNoise: PlaintextNoise

    init() throws {
        initiatorNoise = try PlaintextNoise(staticByte: 0x11, ephemeralByte: 0x33)
        responderNoise = try PlaintextNoise(staticByte: 0x22, ephemeralByte: 0x44)
    }

    func makeInitiator(_ configuration: HandshakeConfiguration = .current)
        -> HandshakeMachine<PlaintextNoise>
    {
        HandshakeMachine(role: .initiator, noise: initiatorNoise, configuration: configuration)
    }

    func makeResponder(_ configuration: HandshakeConfiguration = .current)
        -> HandshakeMachine<PlaintextNoise>
    {
        HandshakeMachine(role: .responder, noise: responderNoise, configuration: configuration)
    }

    /// Runs both machines to the end with `chunk`-sized deliveries, accepting every identity;
    /// returns their final steps.
    func runBoth(
        chunk: Int = .max, initiator: HandshakeConfiguration = .current,
        responder: HandshakeConfiguration = .current
    ) -> (initiator: HandshakeMachineStep, responder: HandshakeMachineStep) {
        var i = makeInitiator(initiator)
        var r = makeResponder(responder)
        var lastI = i.start()
        var lastR = r.start()
        var toResponder = lastI.sent
        var toInitiator = lastR.sent
        while !toResponder.isEmpty || !toInitiator.isEmpty {
            let (sentByR, finalR) = feedSettling(&r, toResponder, chunk: chunk)
            toResponder = []
            toInitiator += sentByR
            if let finalR { lastR = finalR }
            let (sentByI, finalI) = feedSettling(&i, toInitiator, chunk: chunk)
            toInitiator = []
            toResponder += sentByI
            if let finalI { lastI = finalI }
        }
        return (lastI, lastR)
    }

    @Test func completesAndNegotiatesWithEitherChunking() {
        let whole = runBoth()
        guard case .established(let outcome, _) = whole.initiator,
            case .established(let responderOutcome, _) = whole.responder
        else {
            Issue.record("not established: \(whole.initiator) / \(whole.responder)")
            return
        }
        #expect(outcome.remoteKey == responderNoise.localStaticKey)
        #expect(responderOutcome.remoteKey == initiatorNoise.localStaticKey)
        #expect(outcome.remoteMaxVersion == 1 && outcome.capabilities == 0)
        for chunk in [1, 2, 3, 7, 50] {
            let chunked = runBoth(chunk: chunk)
            #expect(chunked.initiator == whole.initiator, "chunk \(chunk)")
            #expect(chunked.responder == whole.responder, "chunk \(chunk)")
        }
    }

    @Test func capabilitiesAreTheAndOfBothSides() {
        let result = runBoth(
            initiator: HandshakeConfiguration(capabilities: 0b1011),
            responder: HandshakeConfiguration(capabilities: 0b0110))
        guard case .established(let outcome, _) = result.initiator,
            case .established(let other, _) = result.responder
        else {
            Issue.record("not established")
            return
        }
        #expect(outcome.capabilities == 0b0010 && other.capabilities == 0b0010)
    }

    /// §7.1 item 8.
    @Test func item08BadMagicClosesWithoutWritingAByte() {
        var r = makeResponder()
        _ = r.start()
        let steps = feed(&r, Array("HTTP/1.1".utf8))
        #expect(steps.last?.failure == HandshakeFailure(.badMagic))
        #expect(steps.allSatisfy { $0.sent.isEmpty })
        #expect(responderNoise.prologue == nil)
    }

    /// §7.1 item 9: no Noise state is created; an unsupported version may get VERSION_REJECT.
    @Test(arguments: [(UInt8(2), UInt8(2)), (0, 1), (7, 9)])
    func item09UnsupportedWireVersionIsRejectedBeforeNoise(wire: UInt8, max: UInt8) {
        var r = makeResponder()
        _ = r.start()
        let steps = feed(&r, [0x4C, 0x43, 0x48, 0x54, wire, max, 0, 0])
        #expect(steps.last?.failure == HandshakeFailure(.unsupportedVersion(wire)))
        #expect(steps.last?.sent == [0x4C, 0x43, 0x48, 0x54, 0, 1, 0, 0])
        #expect(responderNoise.prologue == nil)
    }

    @Test func item09MaxVersionBelowWireVersionClosesSilently() {
        var r = makeResponder()
        _ = r.start()
        let steps = feed(&r, [0x4C, 0x43, 0x48, 0x54, 1, 0, 0, 0])
        #expect(steps.last?.failure == HandshakeFailure(.maxBelowWireVersion))
        #expect(steps.last?.sent == [])
        #expect(responderNoise.prologue == nil)
    }

    @Test func versionRejectIsReportedToTheInitiatorAsAHint() {
        var i = makeInitiator()
        _ = i.start()
        let steps = feed(&i, [0x4C, 0x43, 0x48, 0x54, 0, 3, 0, 0], chunk: 1)
        #expect(steps.last?.failure == HandshakeFailure(.versionRejected(peerMaxVersion: 3)))
        #expect(initiatorNoise.wiped)
    }

    /// §7.1 item 10(b): both sides support v2 but the initiator was talked into v1.
    @Test func item10bDowngradeIsDetectedOnBothSides() {
        var both = HandshakeConfiguration(maxVersion: 2)
        both.supportedWireVersions = 1...1
        // The initiator sees p2.max_ver = 2 > the spoken 1 with its own max 2: abort before msg3.
        let result = runBoth(initiator: both, responder: both)
        #expect(result.initiator.failure == HandshakeFailure(.downgradeDetected))
        // The responder, given an authentic msg3 saying max 2 for a v1 preamble, aborts too.
        var r = makeResponder(both)
        _ = r.start()
        let preamble: [UInt8] = [0x4C, 0x43, 0x48, 0x54, 1, 2, 0, 0]
        _ = feed(&r, preamble + [0, 32] + [UInt8](repeating: 0x33, count: 32))
        let staticBox = [UInt8](repeating: 0x11, count: 32) + [UInt8](repeating: 0, count: 16)
        let message3 = staticBox + payloadBytes(maxVersion: 2) + [UInt8](repeating: 0, count: 16)
        let steps = feed(&r, [0, UInt8(message3.count)] + message3)
        #expect(steps.last?.failure == HandshakeFailure(.downgradeDetected))
    }

    /// §7.1 item 10(c): p3.max_ver must equal the preamble's max_ver.
    @Test func item10cMessage3MaxVersionMustMatchThePreamble() {
        var r = makeResponder()
        _ = r.start()
        let preamble: [UInt8] = [0x4C, 0x43, 0x48, 0x54, 1, 1, 0, 0]
        let message1 = [UInt8](repeating: 0x33, count: 32)
        _ = feed(&r, preamble + [0, 32] + message1)
        let staticBox = [UInt8](repeating: 0x11, count: 32) + [UInt8](repeating: 0, count: 16)
        let payload = payloadBytes(maxVersion: 2) + [UInt8](repeating: 0, count: 16)
        let message3 = staticBox + payload
        let steps = feed(&r, [0, UInt8(message3.count)] + message3)
        #expect(steps.last?.failure == HandshakeFailure(.maxVersionMismatch))
    }

    /// §7.1 item 13: every listed length closes before the body is read (nothing buffered).
    @Test(arguments: [0, 31, 33, 65_535])
    func item13Message1LengthBoundsCloseBeforeTheBody(length: Int) {
        var r = makeResponder()
        _ = r.start()
        let preamble: [UInt8] = [0x4C, 0x43, 0x48, 0x54, 1, 1, 0, 0]
        let body = [UInt8](repeating: 0x33, count: min(length, 4096))
        let steps = feed(&r, preamble + [UInt8(length >> 8), UInt8(length & 0xFF)] + body)
        #expect(
            steps.last?.failure
                == HandshakeFailure(.lengthOutOfBounds(message: "msg1", length: length)))
        #expect(r.consumedBytes == 10)
    }

    @Test(arguments: [107, 609, 65_535])
    func item13Message2LengthBoundsCloseBeforeTheBody(length: Int) {
        var i = makeInitiator()
        let flight = i.start().sent
        #expect(flight.count == 42)
        let steps = feed(
            &i, [UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 1, count: 700))
        #expect(
            steps.last?.failure
                == HandshakeFailure(.lengthOutOfBounds(message: "msg2", length: length)))
        #expect(i.consumedBytes == 2)
    }

    @Test(arguments: [75, 577, 65_535])
    func item13Message3LengthBoundsCloseBeforeTheBody(length: Int) {
        var r = makeResponder()
        _ = r.start()
        let flight: [UInt8] =
            [0x4C, 0x43, 0x48, 0x54, 1, 1, 0, 0, 0, 32] + [UInt8](repeating: 0x33, count: 32)
        _ = feed(&r, flight)
        let steps = feed(
            &r, [UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 1, count: 700))
        #expect(
            steps.last?.failure
                == HandshakeFailure(.lengthOutOfBounds(message: "msg3", length: length)))
        #expect(r.consumedBytes == 42 + 2)
    }

    /// §7.1 item 16: the header frame must be exactly 24 bytes.
    @Test func item16GarbageInPlaceOfTheHeaderFrameCloses() {
        var i = makeInitiator()
        var r = makeResponder()
        _ = r.start()
        let flight = i.start().sent
        let message2 = feed(&r, flight).last?.sent ?? []
        guard case .identityCheck = feed(&i, message2).last else {
            Issue.record("no identity check")
            return
        }
        _ = i.resolveIdentity(accept: true)
        let steps = feed(&i, [0, 23] + [UInt8](repeating: 9, count: 23))
        #expect(
            steps.last?.failure
                == HandshakeFailure(.lengthOutOfBounds(message: "header frame", length: 23)))
    }

    /// The identity decision is reached before msg3, and refusing sends nothing (§3.8).
    @Test func refusingTheIdentityWritesNothingMore() {
        var i = makeInitiator()
        var r = makeResponder()
        _ = r.start()
        let flight = i.start().sent
        let message2 = feed(&r, flight).last?.sent ?? []
        let check = feed(&i, message2).last
        #expect(check == .identityCheck(remote: responderNoise.localStaticKey, send: []))
        #expect(
            i.resolveIdentity(accept: false)
                == .failed(HandshakeFailure(.identityRejected), send: []))
        #expect(initiatorNoise.wiped)
    }

    @Test func selfConnectionIsAborted() throws {
        let twin = try PlaintextNoise(staticByte: 0x11, ephemeralByte: 0x44)
        var i = HandshakeMachine(role: .initiator, noise: initiatorNoise)
        var r = HandshakeMachine(role: .responder, noise: twin)
        _ = r.start()
        let flight = i.start().sent
        let message2 = feed(&r, flight).last?.sent ?? []
        #expect(feed(&i, message2).last?.failure == HandshakeFailure(.selfConnection))
    }

    /// Bytes that follow the peer's header frame are handed on as leftover, not lost.
    @Test func bytesAfterTheHeaderFrameAreKeptAsLeftover() {
        var i = makeInitiator()
        var r = makeResponder()
        _ = r.start()
        let flight = i.start().sent
        let message2 = feed(&r, flight).last?.sent ?? []
        _ = feed(&i, message2)
        let message3AndHeader = i.resolveIdentity(accept: true).sent
        let steps = feed(&r, message3AndHeader + [7, 7, 7])
        guard case .identityCheck = steps.last else {
            Issue.record("no identity check")
            return
        }
        guard case .established(let outcome, let send) = r.resolveIdentity(accept: true) else {
            Issue.record("not established")
            return
        }
        #expect(outcome.leftover == [7, 7, 7])
        #expect(send == [0, 24] + PlaintextNoise.header)
        #expect(responderNoise.remoteHeader == PlaintextNoise.header)
    }

    /// Random input never traps the responder or the initiator; it either waits or fails.
    @Test func randomInputNeverCrashes() throws {
        var generator = SeededGenerator(seed: 42)
        for round in 0..<2_000 {
            let noise = try PlaintextNoise(staticByte: 0x22, ephemeralByte: 0x44)
            var r = HandshakeMachine(role: .responder, noise: noise)
            _ = r.start()
            var input: [UInt8] =
                round.isMultiple(of: 2) ? [0x4C, 0x43, 0x48, 0x54, 1, 1, 0, 0, 0, 32] : []
            input += (0..<Int(generator.next() % 200)).map { _ in
                UInt8(truncatingIfNeeded: generator.next())
            }
            for step in feed(&r, input, chunk: Int(generator.next() % 40) + 1) {
                if case .established = step { Issue.record("random input established a session") }
            }
        }
    }
}

/// Feeds `bytes` in chunks, answering identity checks with "accept" at once; returns what the
/// machine sent and its last established/failed step, if any.
func feedSettling(_ machine: inout HandshakeMachine<PlaintextNoise>, _ bytes: [UInt8], chunk: Int)
    -> (sent: [UInt8], final: HandshakeMachineStep?)
{
    var sent: [UInt8] = []
    var final: HandshakeMachineStep?
    for step in feed(&machine, bytes, chunk: chunk) {
        sent += step.sent
        var current = step
        if case .identityCheck = step {
            current = machine.resolveIdentity(accept: true)
            sent += current.sent
        }
        switch current {
        case .established, .failed: final = current
        default: break
        }
    }
    return (sent, final)
}
