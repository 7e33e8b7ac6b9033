import LanChatCore
import LanChatCrypto
import Testing

/// PROTOCOL.md §7.2 on real secretstream states, in memory. Each test is named after its item.
@Suite struct TransportNegativeTests {
    let now = ContinuousClock.now

    /// Two DATA messages ("hello", "world") as sealed bytes, and the pair that made them.
    func twoMessages() throws -> (ChannelPairBox, [UInt8]) {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        try pair.sealMessage(Array("hello".utf8), now: now, into: &out)
        try pair.sealMessage(Array("world".utf8), now: now, into: &out)
        return (pair, out)
    }

    /// Item 21: a bit flip anywhere in a DATA frame → close; nothing from it or after it.
    @Test func item21BitFlipInADataFrameCloses() throws {
        let (_, reference) = try twoMessages()
        let firstFrameLength = frames(of: reference)[0].count
        for bit in 0..<(firstFrameLength * 8) {
            let (pair, stream) = try twoMessages()
            var flipped = stream
            flipped[bit / 8] ^= UInt8(1 << (bit % 8))
            let delivery = pair.deliver(flipped)
            #expect(delivery.events.isEmpty, "bit \(bit)")
            // A flip in the length may leave the opener waiting: then EOF reports "lost".
            if delivery.error == nil { #expect(pair.endOfInput() == ChannelError(.truncated)) }
        }
    }

    /// Item 22: length prefix ±1, or its two bytes swapped → close.
    @Test func item22AlteredLengthPrefixCloses() throws {
        for alteration in 0..<3 {
            let (pair, stream) = try twoMessages()
            var altered = stream
            let length = Int(stream[0]) << 8 | Int(stream[1])
            switch alteration {
            case 0: altered[1] = UInt8(length + 1)
            case 1: altered[1] = UInt8(length - 1)
            default: altered.swapAt(0, 1)
            }
            let delivery = pair.deliver(altered)
            #expect(delivery.events.isEmpty)
            #expect(delivery.error != nil || pair.endOfInput() == ChannelError(.truncated))
        }
    }

    /// Item 23: frame lengths 0, 1 and 18 → close before the body is read.
    @Test(arguments: [0, 1, 18])
    func item23FrameShorterThan19Closes(length: Int) throws {
        let (pair, _) = try twoMessages()
        let delivery = pair.deliver([0, UInt8(length)] + [UInt8](repeating: 0, count: length))
        #expect(delivery == Delivery(events: [], error: ChannelError(.lengthOutOfBounds(length))))
        #expect(pair.deliver([]).error == ChannelError(.unusable))
    }

    /// Item 24: `len` = 1000, 500 bytes, then FIN → reported as lost; no partial delivery.
    @Test func item24TruncatedFrameIsReportedLost() throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        try pair.sealMessage([UInt8](repeating: 0x41, count: 1_000 - 19), now: now, into: &out)
        #expect(Array(out.prefix(2)) == [0x03, 0xE8])
        let delivery = pair.deliver(Array(out.prefix(502)))
        #expect(delivery == Delivery())
        #expect(pair.endOfInput() == ChannelError(.truncated))
        #expect(ChannelError(.truncated).description == "connection lost, possibly truncated")
    }

    /// Item 25: duplicated, swapped and deleted frames → close.
    @Test func item25DuplicatedSwappedOrDeletedFramesClose() throws {
        for variant in 0..<3 {
            let pair = ChannelPairBox(try ChannelPair.make())
            var out: [UInt8] = []
            for word in ["one", "two", "three"] {
                try pair.sealMessage(Array(word.utf8), now: now, into: &out)
            }
            let parts = frames(of: out)
            let reordered: [[UInt8]] =
                switch variant {
                case 0: [parts[0], parts[0], parts[1]]
                case 1: [parts[1], parts[0], parts[2]]
                default: [parts[0], parts[2]]
                }
            let delivery = pair.deliver(reordered.flatMap { $0 })
            #expect(delivery.error == ChannelError(.authenticationFailed))
            let expected: [ChannelEvent] = variant == 1 ? [] : [.message(Array("one".utf8))]
            #expect(delivery.events == expected)
        }
    }

    /// Item 28: EOF without CLOSE is "possibly truncated"; EOF after CLOSE is clean.
    @Test func item28EndOfInputWithoutCloseIsPossiblyTruncated() throws {
        let (pair, stream) = try twoMessages()
        #expect(pair.deliver(stream).events.count == 2)
        #expect(pair.endOfInput() == ChannelError(.truncated))

        let (closing, first) = try twoMessages()
        var out = first
        try closing.sealClose(.shutdown, into: &out)
        #expect(closing.deliver(out).events.last == .close(.shutdown))
        #expect(closing.endOfInput() == nil)
    }

    /// Item 29: bytes after a FINAL frame are ignored.
    @Test func item29BytesAfterFinalAreIgnored() throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        try pair.sealMessage([1], now: now, into: &out)
        try pair.sealClose(.normal, into: &out)
        let afterwards = [0, 0, 0xFF, 0xFF] + [UInt8](repeating: 0xEE, count: 300)
        let delivery = pair.deliver(out + afterwards)
        #expect(delivery == Delivery(events: [.message([1]), .close(.normal)], error: nil))
        #expect(pair.deliver(afterwards) == Delivery())
        #expect(pair.endOfInput() == nil)
        var more: [UInt8] = []
        #expect(throws: ChannelError(.closed)) { try pair.sealPing([0], into: &more) }
    }

    /// Item 30: DATA with FINAL, CLOSE with MESSAGE, any TAG_PUSH → close.
    @Test(arguments: [
        (UInt8(1), UInt8(1), UInt8(3)), (5, 0, 0), (1, 1, 1), (2, 0, 1), (4, 0, 0), (1, 0, 2),
        (9, 0, 3),
    ])
    func item30TagTypeMismatchCloses(type: UInt8, flags: UInt8, tag: UInt8) throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        let body: [UInt8] = type == 5 ? [0, 0] : []
        try pair.sealRaw(type: type, flags: flags, body: body, tag: tag, into: &out)
        try pair.sealMessage([7], now: now, into: &out)
        let delivery = pair.deliver(out)
        #expect(delivery.events.isEmpty)
        #expect(
            delivery.error == ChannelError(tag == 1 ? .pushTag : .tagMismatch(type: type, tag: tag))
        )
    }

    /// §4.2: a PING's body is 8 bytes; any other length is malformed, as a REKEY with a body.
    @Test(arguments: [0, 7, 9, 1_000])
    func aPingOfAnotherLengthCloses(length: Int) throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        try pair.sealRaw(
            type: 2, flags: 0, body: [UInt8](repeating: 1, count: length), tag: 0, into: &out)
        try pair.sealMessage([7], now: now, into: &out)
        #expect(
            pair.deliver(out) == Delivery(events: [], error: ChannelError(.malformedBody(type: 2))))
    }

    @Test func unknownFrameTypeWithMessageTagIsIgnored() throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        try pair.sealRaw(type: 0x42, flags: 0xFF, body: [1, 2, 3], tag: 0, into: &out)
        try pair.sealMessage([7], now: now, into: &out)
        #expect(pair.deliver(out) == Delivery(events: [.message([7])], error: nil))
    }

    /// Item 31: DATA fragments beyond 1 MiB without END → close, memory within the cap.
    @Test func item31ReassemblyBeyondOneMebibyteCloses() throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        let fragment = [UInt8](repeating: 0x33, count: 65_516)
        var failure: ChannelError?
        for _ in 0..<17 {
            var out: [UInt8] = []
            try pair.sealRaw(type: 1, flags: 0, body: fragment, tag: 0, into: &out)
            let delivery = pair.deliver(out)
            #expect(delivery.events.isEmpty)
            #expect(pair.reassemblyCapacity <= (1 << 20) + 4_096)
            if let error = delivery.error {
                failure = error
                break
            }
        }
        #expect(failure == ChannelError(.reassemblyOverflow))
    }

    /// Item 33: after a REKEY both sides continue; a pre-rekey frame injected afterwards fails.
    @Test func item33RekeyInteropAndPreRekeyFrameRejected() throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        try pair.sealMessage([1], now: now, into: &out)
        let beforeRekey = out
        try pair.sealRaw(type: 4, flags: 0, body: [], tag: 2, into: &out)
        try pair.sealMessage([2], now: now, into: &out)
        #expect(pair.deliver(out).events == [.message([1]), .message([2])])
        #expect(pair.deliver(beforeRekey).error == ChannelError(.authenticationFailed))
    }

    /// Item 33: the sealer inserts REKEY after exactly 2^16 frames, and the peer follows.
    @Test func item33RekeyAfterExactly65536Frames() throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        for _ in 0..<65_536 { try pair.sealMessage([], now: now, into: &out) }
        #expect(out.count == 65_536 * 21)
        #expect(pair.rekeyPolicy.framesSinceRekey == 65_536)
        let before = out.count
        try pair.sealMessage([9], now: now, into: &out)
        #expect(out.count - before == 21 + 22)  // REKEY (19 + 2) then DATA (20 + 2)
        #expect(pair.rekeyPolicy.framesSinceRekey == 1)
        let delivery = pair.deliver(out)
        #expect(delivery.error == nil && delivery.events.count == 65_537)
        #expect(delivery.events.last == .message([9]))
    }

    /// Item 33: REKEY once 64 MiB went out, and after 10 minutes with traffic (fake clock).
    @Test func item33RekeyAfter64MebibytesAndAfterTenMinutes() throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        let message = [UInt8](repeating: 0x4D, count: 1 << 20)
        var sink: [UInt8] = []
        for _ in 0..<63 {
            sink.removeAll(keepingCapacity: true)
            try pair.sealMessage(message, now: now, into: &sink)
        }
        // Each message is 1 MiB plus 17 frames × 21 bytes of framing; 63 stay below 64 MiB.
        let perMessage = UInt64((1 << 20) + 17 * 21)
        #expect(pair.rekeyPolicy.bytesSinceRekey == 63 * perMessage)
        #expect(pair.rekeyPolicy.framesSinceRekey == 63 * 17)
        // The 64th crosses 64 MiB after its 16th fragment: REKEY goes before the 17th.
        sink.removeAll()
        try pair.sealMessage(message, now: now, into: &sink)
        let sealed = frames(of: sink)
        #expect(sealed.count == 18)
        #expect(sealed[16].count == 21 && sealed[17].count == 320 + 21)
        #expect(pair.rekeyPolicy.bytesSinceRekey == 341)
        #expect(pair.rekeyPolicy.framesSinceRekey == 1)

        let timed = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        try timed.sealMessage([1], now: now, into: &out)
        try timed.sealMessage([2], now: now + .seconds(599), into: &out)
        #expect(frames(of: out).count == 2)
        try timed.sealMessage([3], now: now + .seconds(600), into: &out)
        #expect(frames(of: out).count == 4)
        try timed.sealMessage([4], now: now + .seconds(1_199), into: &out)
        #expect(frames(of: out).count == 5)
        let delivery = timed.deliver(out)
        #expect(delivery.events == [.message([1]), .message([2]), .message([3]), .message([4])])
    }

    @Test func pingPongAndCloseReachTheOtherSide() throws {
        let pair = ChannelPairBox(try ChannelPair.make())
        var out: [UInt8] = []
        try pair.sealPing([1, 2, 3, 4, 5, 6, 7, 8], into: &out)
        try pair.sealPong([8, 7], into: &out)
        try pair.sealClose(.duplicate, into: &out)
        #expect(
            pair.deliver(out).events == [
                .ping([1, 2, 3, 4, 5, 6, 7, 8]), .pong([8, 7]), .close(.duplicate),
            ])
        var tooBig: [UInt8] = []
        #expect(throws: ChannelError(.messageTooLarge((1 << 20) + 1))) {
            try pair.backSeal([UInt8](repeating: 0, count: (1 << 20) + 1), into: &tooBig)
        }
    }
}

/// A reference wrapper around a `ChannelPair`, so tests can hand it to helpers.
final class ChannelPairBox {
    private var pair: ChannelPair

    init(_ pair: consuming ChannelPair) { self.pair = pair }

    func sealMessage(_ message: [UInt8], now: ContinuousClock.Instant, into out: inout [UInt8])
        throws(ChannelError)
    {
        try pair.sealer.sealMessage(message, now: now, into: &out)
    }

    func backSeal(_ message: [UInt8], into out: inout [UInt8]) throws(ChannelError) {
        try pair.backSealer.sealMessage(message, now: .now, into: &out)
    }

    func sealPing(_ body: [UInt8], into out: inout [UInt8]) throws(ChannelError) {
        try pair.sealer.sealPing(body, into: &out)
    }

    func sealPong(_ body: [UInt8], into out: inout [UInt8]) throws(ChannelError) {
        try pair.sealer.sealPong(body, into: &out)
    }

    func sealClose(_ reason: CloseReason, into out: inout [UInt8]) throws(ChannelError) {
        try pair.sealer.sealClose(reason, into: &out)
    }

    func sealRaw(type: UInt8, flags: UInt8, body: [UInt8], tag: UInt8, into out: inout [UInt8])
        throws(ChannelError)
    {
        try pair.sealer.sealRawFrameForTesting(
            type: type, flags: flags, body: body, tag: tag, into: &out)
    }

    func deliver(_ bytes: [UInt8], chunk: Int = .max) -> Delivery {
        LanChatCryptoTests.deliver(bytes, to: &pair.opener, chunk: chunk)
    }

    /// Nil when the end of input was clean.
    func endOfInput() -> ChannelError? {
        do throws(ChannelError) {
            try pair.opener.endOfInput()
            return nil
        } catch {
            return error
        }
    }

    var rekeyPolicy: RekeyPolicy { pair.sealer.rekeyPolicyForTesting }
    var reassemblyCapacity: Int { pair.opener.reassemblyForTesting.capacity }
}
