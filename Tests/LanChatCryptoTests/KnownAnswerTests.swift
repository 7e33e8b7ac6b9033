import LanChatCore
import LanChatCrypto
import Testing

/// PROTOCOL.md §3.11 and §6: the LCHT/1 vector, byte for byte, with fixed ephemerals.
@Suite struct LCHTKnownAnswerTests {
    @Test func handshakeMatchesTheVectorByteForByte() throws {
        var pump = try HandshakePump.vector()
        pump.run()
        let initiatorChannel = try requireSome(pump.initiatorChannel.take(), "initiator channel")
        let responderChannel = try requireSome(pump.responderChannel.take(), "responder channel")
        let toResponder = pump.wireToResponder
        let toInitiator = pump.wireToInitiator
        // first flight ‖ u16(76) ‖ msg3 ‖ u16(24) ‖ header
        #expect(Array(toResponder.prefix(42)) == LCHTVector.firstFlight)
        #expect(Array(toResponder[42..<44]) == [0, 76])
        #expect(Array(toResponder[44..<120]) == LCHTVector.message3)
        #expect(Array(toResponder[120..<122]) == [0, 24])
        #expect(toResponder.count == 146)
        // u16(108) ‖ msg2 ‖ u16(24) ‖ header
        #expect(Array(toInitiator[0..<2]) == [0, 108])
        #expect(Array(toInitiator[2..<110]) == LCHTVector.message2)
        #expect(toInitiator.count == 110 + 26)
        #expect(initiatorChannel.sessionID == LCHTVector.handshakeHash)
        #expect(responderChannel.sessionID == LCHTVector.handshakeHash)
        #expect(initiatorChannel.remoteKey.bytes == LCHTVector.responderPublic)
        #expect(responderChannel.remoteKey.bytes == LCHTVector.initiatorPublic)
        #expect(initiatorChannel.sessionIDPrefix == "0c7f692a")
        #expect(initiatorChannel.remoteMaxVersion == 1 && initiatorChannel.capabilities == 0)
    }

    @Test func splitKeysMatchTheVector() throws {
        let initiator = NoiseHandshakeState(
            isInitiator: true, identity: try Keys.initiator(),
            fixedEphemeral: try Keys.initiatorEphemeral())
        let responder = NoiseHandshakeState(
            isInitiator: false, identity: try Keys.responder(),
            fixedEphemeral: try Keys.responderEphemeral())
        try initiator.initialize(prologue: LCHTVector.preamble)
        try responder.initialize(prologue: LCHTVector.preamble)
        let message1 = try initiator.writeMessage1(payload: [])
        #expect(message1 == LCHTVector.message1)
        #expect(try responder.readMessage1(message1[...]).isEmpty)
        let message2 = try responder.writeMessage2(payload: LCHTVector.payload)
        #expect(message2 == LCHTVector.message2)
        let (responderKey, payload2) = try initiator.readMessage2(message2[...])
        #expect(responderKey.bytes == LCHTVector.responderPublic && payload2 == LCHTVector.payload)
        let message3 = try initiator.writeMessage3(payload: LCHTVector.payload)
        #expect(message3 == LCHTVector.message3)
        let (initiatorKey, payload3) = try responder.readMessage3(message3[...])
        #expect(initiatorKey.bytes == LCHTVector.initiatorPublic && payload3 == LCHTVector.payload)
        #expect(initiator.handshakeHash == LCHTVector.handshakeHash)
        for state in [initiator, responder] {
            let keys = try state.splitKeysForTesting()
            #expect(keys.initiatorToResponder == LCHTVector.keyInitiatorToResponder)
            #expect(keys.responderToInitiator == LCHTVector.keyResponderToInitiator)
        }
    }

    /// The initiator's header frame opens with k_i2r, so its sealer really uses the vector key.
    @Test func initiatorStreamUsesTheVectorKey() throws {
        var pump = try HandshakePump.vector()
        pump.run()
        let channel = try requireSome(pump.initiatorChannel.take(), "initiator channel")
        let header = Array(pump.wireToResponder[122..<146])
        let halves = channel.split()
        var sealer = halves.sealer
        var frame: [UInt8] = []
        try sealer.sealPing([1, 2, 3, 4, 5, 6, 7, 8], into: &frame)
        let stream = try IncomingStream(
            key: try SecretBuffer(copying: LCHTVector.keyInitiatorToResponder), header: header[...])
        var plaintext: [UInt8] = []
        let tag = try frame.withUnsafeBytes { raw in
            try stream.open(
                UnsafeRawBufferPointer(rebasing: raw[2...]), ad: Array(frame.prefix(2)),
                into: &plaintext)
        }
        #expect(tag == 0)
        #expect(plaintext == [2, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test func fingerprintIdKeyTagAndSafetyNumberMatchTheVector() throws {
        let initiator = try #require(PeerKey(bytes: LCHTVector.initiatorPublic))
        let responder = try #require(PeerKey(bytes: LCHTVector.responderPublic))
        #expect(Fingerprint.fingerprint32(initiator) == LCHTVector.fingerprintInitiator)
        #expect(initiator.id == LCHTVector.idInitiator)
        #expect(Fingerprint.keyTag(initiator) == LCHTVector.keyTagInitiator)
        #expect(Fingerprint.safetyNumber(initiator, responder) == LCHTVector.safetyNumber)
    }
}
