import LanChatCore
import LanChatCrypto
import Testing

/// PROTOCOL.md §7.1 on the real Noise implementation, without sockets. Each test is named
/// after its item.
@Suite struct HandshakeNegativeTests {
    /// A fresh vector initiator (fixed keys), already started; returns it and its first flight.
    func startedInitiator() throws -> (ChannelHandshakeBox, [UInt8]) {
        let box = ChannelHandshakeBox(
            ChannelHandshake(
                role: .initiator, identity: try Keys.initiator(), configuration: .current,
                fixedEphemeral: try Keys.initiatorEphemeral()))
        let flight = box.start().sent
        return (box, flight)
    }

    func startedResponder() throws -> ChannelHandshakeBox {
        let box = ChannelHandshakeBox(
            ChannelHandshake(
                role: .responder, identity: try Keys.responder(), configuration: .current,
                fixedEphemeral: try Keys.responderEphemeral()))
        _ = box.start()
        return box
    }

    /// Item 1: the responder presents K′ ≠ the pinned K → abort before msg3; no msg3 bytes.
    @Test func item01WrongStaticKeyForPinnedContactAbortsBeforeMessage3() throws {
        let pinned = try IdentityKeyPair.generate().publicKey
        var pump = try HandshakePump.vector()
        pump.accept = { $0 == pinned }
        pump.run()
        #expect(pump.initiatorFailure == HandshakeFailure(.identityRejected))
        #expect(pump.initiatorIdentityChecks.map(\.bytes) == [LCHTVector.responderPublic])
        #expect(pump.wireToResponder == LCHTVector.firstFlight)  // nothing after the first flight
        #expect(pump.responderChannel == nil && pump.responderIdentityChecks.isEmpty)
    }

    /// Item 3: an impostor sends s = K_alice with its own e → msg2's AEAD fails; the victim
    /// never reaches the identity decision (HANDSHAKE_FAILED, not KEY_MISMATCH).
    @Test func item03ImpostorClaimingAPinnedKeyFailsAuthentication() throws {
        let alice = try Keys.responder().publicKey
        let (victim, flight) = try startedInitiator()
        let impostor = ManualPeer(
            initiator: false, identity: try IdentityKeyPair.generate(), claimedStatic: alice.bytes)
        let message2 = try impostor.message2(answering: flight)
        #expect(victim.receive(message2).failure == HandshakeFailure(.decryptionFailed))
    }

    /// Item 4: a replayed msg1 gets a fresh msg2, and nothing more happens without msg3.
    @Test func item04ReplayedMessage1GetsAFreshEphemeralAndNeverCompletes() throws {
        var original = try HandshakePump.random()
        original.run()
        let flight = Array(original.wireToResponder.prefix(42))
        let responder = ChannelHandshakeBox(
            ChannelHandshake(role: .responder, identity: try IdentityKeyPair.generate()))
        _ = responder.start()
        let step = responder.receive(flight)
        guard case .needMore(let message2) = step else {
            Issue.record("unexpected \(step)")
            return
        }
        #expect(message2.count == 110)
        #expect(Array(message2[2..<34]) != Array(original.wireToInitiator[2..<34]))
        #expect(responder.receive([]) == .needMore([]))
        #expect(responder.identityChecks == 0 && !responder.established)
    }

    /// Item 5: msg3 of an earlier session, replayed against a fresh responder ephemeral.
    @Test func item05ReplayedMessage3FailsAuthentication() throws {
        var earlier = try HandshakePump.vector()
        earlier.run()
        let flight = Array(earlier.wireToResponder.prefix(42))
        let message3 = Array(earlier.wireToResponder[42..<120])
        let responder = ChannelHandshakeBox(
            ChannelHandshake(role: .responder, identity: try Keys.responder()))
        _ = responder.start()
        _ = responder.receive(flight)
        #expect(responder.receive(message3).failure == HandshakeFailure(.decryptionFailed))
        #expect(responder.identityChecks == 0)
    }

    /// Item 6: msg2 of an earlier session, replayed to a new initiator.
    @Test func item06ReplayedMessage2FailsAuthentication() throws {
        var earlier = try HandshakePump.random()
        earlier.run()
        let message2 = Array(earlier.wireToInitiator.prefix(110))
        let initiator = ChannelHandshakeBox(
            ChannelHandshake(role: .initiator, identity: try IdentityKeyPair.generate()))
        _ = initiator.start()
        #expect(initiator.receive(message2).failure == HandshakeFailure(.decryptionFailed))
    }

    /// Item 7: every bit of msg2 and msg3 flipped, one at a time → failure every time.
    @Test func item07BitFlipAtEveryPositionOfMessage2AndMessage3Fails() throws {
        let message2 = [0, 108] + LCHTVector.message2
        for bit in 0..<(LCHTVector.message2.count * 8) {
            let (initiator, _) = try startedInitiator()
            var flipped = message2
            flipped[2 + bit / 8] ^= UInt8(1 << (bit % 8))
            let step = initiator.receive(flipped)
            #expect(step.failure != nil, "msg2 bit \(bit): \(step)")
        }
        let message3 = [0, 76] + LCHTVector.message3
        for bit in 0..<(LCHTVector.message3.count * 8) {
            let responder = try startedResponder()
            _ = responder.receive(LCHTVector.firstFlight)
            var flipped = message3
            flipped[2 + bit / 8] ^= UInt8(1 << (bit % 8))
            let step = responder.receive(flipped)
            #expect(step.failure != nil, "msg3 bit \(bit): \(step)")
        }
    }

    /// Item 7, second half: a flip in the preamble or msg1 makes the initiator fail on msg2
    /// (or the responder stop at once); no side ever reaches the identity decision.
    @Test func item07BitFlipInPreambleOrMessage1FailsTheHandshake() throws {
        for bit in 0..<(42 * 8) {
            let (initiator, flight) = try startedInitiator()
            let responder = try startedResponder()
            var flipped = flight
            flipped[bit / 8] ^= UInt8(1 << (bit % 8))
            let answer = responder.receive(flipped)
            if answer.failure == nil {
                let step = initiator.receive(answer.sent)
                #expect(step.failure != nil, "first-flight bit \(bit): \(step)")
            } else if !answer.sent.isEmpty {
                #expect(initiator.receive(answer.sent).failure != nil, "bit \(bit)")
            }
            #expect(initiator.identityChecks == 0 && responder.identityChecks == 0)
        }
    }

    /// Item 10(a): a MITM raises max_ver in the preamble → the handshake fails.
    @Test func item10aRewrittenPreambleMaxVersionFails() throws {
        var pump = try HandshakePump.vector()
        pump.tamperToResponder = { bytes, offset in
            if offset == 0 { bytes[5] = 2 }
        }
        pump.run()
        #expect(pump.initiatorFailure == HandshakeFailure(.decryptionFailed))
        #expect(pump.initiatorChannel == nil && pump.responderChannel == nil)
    }

    /// Item 10(c): an authentic msg3 whose payload max_ver differs from the preamble's.
    @Test func item10cMessage3MaxVersionDifferentFromPreambleAborts() throws {
        let responder = try startedResponder()
        let attacker = ManualPeer(initiator: true, identity: try IdentityKeyPair.generate())
        let flight = try attacker.firstFlight()
        let message2 = responder.receive(flight).sent
        var payload = LCHTVector.payload
        payload[1] = 2
        let message3 = try attacker.message3(answering: message2, payload: payload)
        #expect(responder.receive(message3).failure == HandshakeFailure(.maxVersionMismatch))
    }

    /// Item 11: the 7 small-order encodings as `re` in msg1 and msg2 and as `s` in msg2 and
    /// msg3 → abort (X25519 −1, or the canonical check first).
    @Test(arguments: LowOrderPoints.all)
    func item11LowOrderKeysAreRejected(point: [UInt8]) throws {
        let responder = try startedResponder()
        let asEphemeralInMessage1 = responder.receive(LCHTVector.preamble + [0, 32] + point)
        #expect(LowOrderPoints.isKeyRejection(asEphemeralInMessage1.failure))

        let (initiator, _) = try startedInitiator()
        let asEphemeralInMessage2 = initiator.receive(
            [0, 108] + point + [UInt8](repeating: 0x5A, count: 76))
        #expect(LowOrderPoints.isKeyRejection(asEphemeralInMessage2.failure))

        let (victim, flight) = try startedInitiator()
        let malicious = ManualPeer(
            initiator: false, identity: try IdentityKeyPair.generate(), claimedStatic: point)
        let asStaticInMessage2 = victim.receive(try malicious.message2(answering: flight))
        #expect(LowOrderPoints.isKeyRejection(asStaticInMessage2.failure))

        let target = try startedResponder()
        let attacker = ManualPeer(
            initiator: true, identity: try IdentityKeyPair.generate(), claimedStatic: point)
        let message2 = target.receive(try attacker.firstFlight()).sent
        let asStaticInMessage3 = target.receive(try attacker.message3(answering: message2))
        #expect(LowOrderPoints.isKeyRejection(asStaticInMessage3.failure))
        #expect(target.identityChecks == 0 && victim.identityChecks == 0)
    }

    /// Item 12: bit 255 set, or u ≥ p, is rejected, both as `re` and as `s`; a blocked peer
    /// flipping its key's top bit cannot come back as a "new" key. (The torsion-alias variant,
    /// accepted as a new peer by design, is not exercised here.)
    @Test func item12NonCanonicalKeysAreRejected() throws {
        let blocked = try IdentityKeyPair.generate()
        var aliased = blocked.publicKey.bytes
        aliased[31] |= 0x80
        let aboveP = Hex.decode("efffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
        let allOnes = [UInt8](repeating: 0xFF, count: 31) + [0x7F]
        for key in [aliased, aboveP, allOnes] {
            let responder = try startedResponder()
            let step = responder.receive(LCHTVector.preamble + [0, 32] + key)
            #expect(step.failure == HandshakeFailure(.nonCanonicalKey))

            let target = try startedResponder()
            let attacker = ManualPeer(initiator: true, identity: blocked, claimedStatic: key)
            let message2 = target.receive(try attacker.firstFlight()).sent
            let result = target.receive(try attacker.message3(answering: message2))
            #expect(result.failure == HandshakeFailure(.nonCanonicalKey))
            #expect(target.identityChecks == 0)
        }
    }

    /// Item 19 with real AEAD: a well-formed msg2 around a bad payload aborts.
    @Test func item19BadPayloadInsideAuthenticMessage2Aborts() throws {
        let badPayloads: [[UInt8]] = [
            [2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            LCHTVector.payload + [0, 1, 0, 9, 1],
            LCHTVector.payload + [0, 1, 0, 0, 0, 1, 0, 0],
        ]
        for payload in badPayloads {
            let (victim, flight) = try startedInitiator()
            let peer = ManualPeer(initiator: false, identity: try IdentityKeyPair.generate())
            let step = victim.receive(try peer.message2(answering: flight, payload: payload))
            guard case .badPayload = step.failure?.code else {
                Issue.record("payload \(payload) gave \(step)")
                continue
            }
        }
    }

    @Test func handshakeSecretsAreGoneAfterFailureAndFurtherInputIsRefused() throws {
        let (initiator, _) = try startedInitiator()
        #expect(initiator.receive([0, 1]).failure != nil)
        #expect(
            initiator.receive(LCHTVector.message2).failure?.code
                == .misuse("receive outside the handshake"))
    }
}

/// A reference wrapper around a `ChannelHandshake` that summarises each step, so tests can
/// pass it around and compare steps with `#expect`.
final class ChannelHandshakeBox {
    private var handshake: ChannelHandshake
    private(set) var identityChecks = 0
    private(set) var established = false

    init(_ handshake: consuming ChannelHandshake) { self.handshake = handshake }

    func start() -> StepSummary { record(handshake.start().summary()) }

    func receive(_ bytes: [UInt8]) -> StepSummary { record(handshake.receive(bytes).summary()) }

    /// Runs `body` on the wrapped handshake.
    func withHandshake<R: ~Copyable>(_ body: (inout ChannelHandshake) -> R) -> R {
        body(&handshake)
    }

    private func record(_ summary: StepSummary) -> StepSummary {
        if case .identityCheck = summary { identityChecks += 1 }
        if case .established = summary { established = true }
        return summary
    }
}

/// `add` refuses a key no handshake can succeed with (`PeerKey.isLowOrder`).
@Suite struct LowOrderKeyTests {
    /// X25519's low-order points below p (libsodium's list; the others are not canonical).
    static let lowOrder = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ]

    @Test(arguments: lowOrder) func aLowOrderPointIsRefused(_ hex: String) throws {
        let key = try #require(PeerKey(bytes: Hex.decode(hex)))
        #expect(key.isLowOrder)
    }

    @Test func realKeysAreNot() throws {
        for _ in 0..<20 {
            let key = try IdentityKeyPair.generate().publicKey
            #expect(!key.isLowOrder)
        }
    }
}
