import LanChatCore
import LanChatCrypto
import LanChatTestSupport
import Testing

/// PROTOCOL.md §7.5: round trip over random frame sequences with random REKEYs, single
/// mutations of the encrypted stream, and delivery in any chunking. Seeded, so reproducible.
@Suite struct PropertyTests {
    /// One random stream: the sealed bytes (ending with CLOSE) and the events it must yield.
    func randomStream(_ generator: inout SeededGenerator, pair: ChannelPairBox) throws -> (
        bytes: [UInt8], events: [ChannelEvent]
    ) {
        var bytes: [UInt8] = []
        var events: [ChannelEvent] = []
        let start = ContinuousClock.now
        for index in 0..<Int(generator.next() % 12 + 1) {
            switch generator.next() % 5 {
            case 0:
                let body = generator.bytes(8)
                try pair.sealPing(body, into: &bytes)
                events.append(.ping(body))
            case 1:
                let body = generator.bytes(Int(generator.next() % 64))
                try pair.sealPong(body, into: &bytes)
                events.append(.pong(body))
            case 2:
                try pair.sealRaw(type: 4, flags: 0, body: [], tag: 2, into: &bytes)
            default:
                let sizes = [0, 1, 100, 65_516, 65_517, 140_000]
                let size =
                    generator.next() % 3 == 0
                    ? sizes[Int(generator.next() % UInt64(sizes.count))]
                    : Int(generator.next() % 2_000)
                let message = generator.bytes(size)
                try pair.sealMessage(message, now: start + .seconds(index * 100), into: &bytes)
                events.append(.message(message))
            }
        }
        try pair.sealClose(.normal, into: &bytes)
        events.append(.close(.normal))
        return (bytes, events)
    }

    @Test func roundTripOverRandomFrameSequencesAndChunkings() throws {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<40 {
            let pair = ChannelPairBox(try ChannelPair.make())
            let (bytes, events) = try randomStream(&generator, pair: pair)
            let chunk = generator.next() % 2 == 0 ? Int.max : Int(generator.next() % 5_000 + 1)
            let delivery = pair.deliver(bytes, chunk: chunk)
            #expect(delivery == Delivery(events: events, error: nil))
            #expect(pair.endOfInput() == nil)
        }
    }

    /// Any single mutation yields an error or "lost", never different plaintext: what is
    /// delivered is always a prefix of what was sent.
    @Test func streamMutationNeverYieldsDifferentPlaintext() throws {
        var generator = SeededGenerator(seed: 11)
        for round in 0..<300 {
            let pair = ChannelPairBox(try ChannelPair.make())
            let (original, events) = try randomStream(&generator, pair: pair)
            var mutated = original
            let position = Int(generator.next() % UInt64(original.count))
            switch round % 5 {
            case 0: mutated[position] ^= UInt8(1 << (generator.next() % 8))
            case 1: mutated.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
            case 2: mutated.remove(at: position)
            case 3:
                let length = Int(generator.next() % 64 + 1)
                let range = position..<min(original.count, position + length)
                mutated.insert(contentsOf: original[range], at: range.upperBound)
            default: mutated = Array(original.prefix(position))
            }
            let delivery = pair.deliver(mutated, chunk: Int(generator.next() % 3_000 + 1))
            #expect(delivery.events.count <= events.count)
            #expect(
                Array(events.prefix(delivery.events.count)) == delivery.events, "round \(round)")
            if delivery.events != events {
                let failed = delivery.error != nil || pair.endOfInput() != nil
                #expect(failed, "round \(round): a mutation went unnoticed")
            }
        }
    }

    /// The handshake delivered byte by byte or in random chunks ends exactly as in one piece.
    @Test func partialReadsOfTheHandshakeGiveTheSameResult() throws {
        var generator = SeededGenerator(seed: 3)
        for mode in 0..<6 {
            var pump = try HandshakePump.vector()
            pump.chunkSize = mode == 0 ? { 1 } : { Int(generator.next() % 50 + 1) }
            pump.run()
            let initiator = try requireSome(pump.initiatorChannel.take(), "initiator")
            let responder = try requireSome(pump.responderChannel.take(), "responder")
            #expect(initiator.sessionID == LCHTVector.handshakeHash)
            #expect(responder.sessionID == LCHTVector.handshakeHash)
            #expect(
                Array(pump.wireToResponder.prefix(120)) == LCHTVector.firstFlight + [0, 76]
                    + LCHTVector.message3)
            #expect(Array(pump.wireToInitiator.prefix(110)) == [0, 108] + LCHTVector.message2)
        }
    }

    /// The initiator's first frames may ride with msg3; the responder's opener holds them.
    @Test func framesArrivingWithTheHandshakeAreHeldForTheOpener() throws {
        var pump = try HandshakePump.vector()
        pump.run()
        let initiator = try requireSome(pump.initiatorChannel.take(), "initiator")
        let halves = initiator.split()
        var sealer = halves.sealer
        var early: [UInt8] = []
        try sealer.sealMessage(Array("HELLO".utf8), now: .now, into: &early)

        // A fresh responder gets first flight, then msg3 ‖ header ‖ early frame in one piece.
        let responder = ChannelHandshakeBox(
            ChannelHandshake(
                role: .responder, identity: try Keys.responder(), configuration: .current,
                fixedEphemeral: try Keys.responderEphemeral()))
        _ = responder.start()
        _ = responder.receive(LCHTVector.firstFlight)
        var channel = responder.receiveKeepingChannel(Array(pump.wireToResponder[42...]) + early)
        let opened = try requireSome(channel.take(), "responder channel")
        var opener = opened.split().opener
        let held = opener.hasHeldInput
        #expect(held)
        #expect(
            deliver([], to: &opener)
                == Delivery(events: [.message(Array("HELLO".utf8))], error: nil))
    }
}

extension ChannelHandshakeBox {
    /// Feeds bytes, accepts the identity, and returns the channel if the handshake completed.
    func receiveKeepingChannel(_ bytes: [UInt8]) -> EstablishedChannel? {
        withHandshake { handshake in
            let final: HandshakeStep
            switch handshake.receive(bytes) {
            case .identityCheck: final = handshake.resolveIdentity(accept: true)
            case .established(let channel, _): return channel
            default: return nil
            }
            switch consume final {
            case .established(let channel, _): return channel
            default: return nil
            }
        }
    }
}
