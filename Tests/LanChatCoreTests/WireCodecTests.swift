import LanChatCore
import Testing

/// The pure codecs of PROTOCOL.md §3.4 and §4: preamble, payload TLVs, frame reader bounds,
/// the tag↔type rule, reassembly, fragmentation and the rekey triggers.
@Suite struct WireCodecTests {
    @Test func preambleRoundTripsAndVersionRejectParses() {
        let preamble = Preamble(wireVersion: 1, maxVersion: 1)
        #expect(preamble.bytes == [0x4C, 0x43, 0x48, 0x54, 1, 1, 0, 0])
        #expect(Preamble.classify(preamble.bytes[...]) == .accepted(preamble))
        // Reserved bytes are ignored but kept (they are part of the prologue).
        #expect(
            Preamble.classify([0x4C, 0x43, 0x48, 0x54, 1, 3, 0xAB, 0xCD])
                == .accepted(Preamble(wireVersion: 1, maxVersion: 3, reserved: 0xABCD)))
        #expect(Preamble.versionReject(maxVersion: 1) == [0x4C, 0x43, 0x48, 0x54, 0, 1, 0, 0])
        #expect(Preamble.parseVersionReject(Preamble.versionReject(maxVersion: 4)[...]) == 4)
        #expect(Preamble.parseVersionReject(preamble.bytes[...]) == nil)
    }

    @Test func payloadRoundTripsWithExtensions() throws {
        let payload = HandshakePayload(
            maxVersion: 3, capabilities: 0x0102_0304_0506_0708,
            extensions: [.init(type: 7, value: [1, 2]), .init(type: 0xFFFF, value: [])])
        let parsed = try HandshakePayload.parse(payload.bytes[...]).get()
        #expect(parsed == payload)
        #expect(payload.bytes.count == 12 + 6 + 4)
    }

    /// §7.1 item 19: payload_format ≠ 1, TLV overrun, duplicate TLV type, over 512 bytes.
    @Test(arguments: [
        ("format 2", payloadBytes(format: 2)),
        ("format 0", payloadBytes(format: 0)),
        ("max_ver 0", payloadBytes(maxVersion: 0)),
        ("short", Array(payloadBytes().prefix(11))),
        ("TLV header overrun", payloadBytes(tail: [0, 1, 0])),
        ("TLV value overrun", payloadBytes(tail: [0, 1, 0, 5, 1, 2, 3, 4])),
        ("duplicate TLV", payloadBytes(tail: [0, 9, 0, 1, 7, 0, 9, 0, 0])),
        ("513 bytes", payloadBytes(tail: [0, 1, 0x01, 0xF1] + [UInt8](repeating: 0, count: 497))),
    ])
    func item19PayloadParsingRejects(name: String, bytes: [UInt8]) {
        guard case .failure(let failure) = HandshakePayload.parse(bytes[...]) else {
            Issue.record("\(name) was accepted")
            return
        }
        guard case .badPayload = failure.code else {
            Issue.record("\(name): \(failure)")
            return
        }
    }

    @Test func payloadIgnoresReservedBytesAndUnknownTLVs() throws {
        var bytes = payloadBytes(tail: [0x12, 0x34, 0, 2, 9, 9])
        bytes[2] = 0xFF
        bytes[3] = 0xEE
        let parsed = try HandshakePayload.parse(bytes[...]).get()
        #expect(parsed.extensions == [.init(type: 0x1234, value: [9, 9])])
        let largest = payloadBytes(tail: [0, 1, 0x01, 0xF0] + [UInt8](repeating: 0, count: 496))
        #expect(largest.count == 512)
        #expect((try? HandshakePayload.parse(largest[...]).get()) != nil)
    }

    /// §4.5: the length is checked before one body byte is taken, and the buffer never grows.
    @Test func frameReaderChecksBoundsBeforeTheBody() {
        var reader = FrameReader()
        let input: [UInt8] = [0xFF, 0xFF] + [UInt8](repeating: 1, count: 100)
        var offset = 0
        let outcome = input.withUnsafeBytes { raw in
            Result { () throws(FrameReader.LengthError) in
                try reader.read(raw, offset: &offset, expecting: .prefixed(19...1000))
            }
        }
        #expect(outcome == .failure(FrameReader.LengthError(length: 65_535)))
        #expect(offset == 2)
        #expect(reader.bufferedBodyBytes == 0)
        #expect(reader.bufferCapacity >= 65_535)
    }

    /// §4.5: the buffer is reserved once at 65 535 bytes; a maximum frame, then small ones, in
    /// any chunking, never make it grow or move.
    @Test func frameReaderBufferIsReservedOnceAndNeverGrows() {
        var reader = FrameReader()
        let largest = [UInt8](repeating: 0xAB, count: 65_535)
        let input: [UInt8] = [0xFF, 0xFF] + largest + [0, 2, 1, 2] + [0, 1, 9]
        var items: [[UInt8]] = []
        var capacities: Set<Int> = []
        var start = 0
        while start < input.count {
            let chunk = input[start..<min(start + 1_000, input.count)]
            chunk.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let complete =
                        (try? reader.read(raw, offset: &offset, expecting: .prefixed(1...65_535)))
                        ?? false
                    capacities.insert(reader.bufferCapacity)
                    if complete { items.append(Array(reader.item)) }
                }
            }
            start += chunk.count
        }
        #expect(items == [largest, [1, 2], [9]])
        #expect(capacities.count == 1)
        #expect((capacities.first ?? 0) >= 65_535)
    }

    @Test func frameReaderAssemblesAcrossChunks() {
        var reader = FrameReader()
        let input: [UInt8] = [0, 3, 7, 8, 9, 0, 1, 5]
        var items: [[UInt8]] = []
        for byte in input {
            var offset = 0
            let complete = [byte].withUnsafeBytes { raw in
                (try? reader.read(raw, offset: &offset, expecting: .prefixed(1...10))) ?? false
            }
            if complete { items.append(Array(reader.item)) }
        }
        #expect(items == [[7, 8, 9], [5]])
        #expect(reader.bufferCapacity >= 65_535)
    }

    /// §7.2 item 30 at the codec level: DATA with FINAL, CLOSE with MESSAGE, any TAG_PUSH.
    @Test func item30TagTypeMismatchIsRejected() {
        let cases: [([UInt8], UInt8)] = [
            ([1, 1, 0x61], 3), ([5, 0, 0, 0], 0), ([1, 1], 1), ([2, 0], 1), ([4, 0], 0),
            ([2, 0], 2), ([9, 0], 2), ([9, 0], 3), ([1, 0], 7),
        ]
        for (plaintext, tag) in cases {
            guard case .failure = TransportFrame.decode(plaintext[...], tag: tag) else {
                Issue.record("accepted type \(plaintext[0]) with tag \(tag)")
                continue
            }
        }
        #expect(TransportFrame.decode([9, 0xFF, 1][...], tag: 0) == .success(.ignored(type: 9)))
    }

    @Test func frameDecodingAppliesFlagsAndBodyRules() {
        #expect(
            TransportFrame.decode([1, 1, 7][...], tag: 0) == .success(.data([7][...], end: true)))
        #expect(TransportFrame.decode([1, 0][...], tag: 0) == .success(.data([][...], end: false)))
        #expect(TransportFrame.decode([4, 0][...], tag: 2) == .success(.rekey))
        #expect(
            TransportFrame.decode([5, 0, 0, 6][...], tag: 3) == .success(.close(.sessionExpired)))
        for (plaintext, tag) in [
            ([UInt8]([1, 2]), UInt8(0)), ([2, 1], 0), ([4, 0, 1], 2), ([5, 0, 1], 3),
        ] {
            guard case .failure = TransportFrame.decode(plaintext[...], tag: tag) else {
                Issue.record("accepted \(plaintext)")
                continue
            }
        }
        #expect(CloseReason(rawValue: 9).description == "reason 9")
    }

    /// §7.2 item 31: more than 1 MiB without END fails, and memory stays within the cap.
    @Test func item31ReassemblyBeyondOneMebibyteFails() {
        var reassembler = Reassembler()
        let fragment = [UInt8](repeating: 0x5A, count: 65_516)
        var failed = false
        for _ in 0..<20 {
            do throws(ChannelError) {
                _ = try reassembler.append(fragment[...], end: false)
            } catch {
                #expect(error == ChannelError(.reassemblyOverflow))
                failed = true
                break
            }
            // The allocator may round the one reservation up by less than a page.
            #expect(reassembler.capacity <= (1 << 20) + 4_096)
        }
        #expect(failed)
        #expect(reassembler.bytesInProgress == 0)
    }

    @Test func reassemblyJoinsFragmentsAndAcceptsExactlyOneMebibyte() throws {
        var reassembler = Reassembler()
        let message = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let fragments = try Fragmenter.fragments(of: message)
        #expect(fragments.count == 17)
        #expect(fragments.dropLast().allSatisfy { $0.body.count == 65_516 && !$0.end })
        #expect(fragments.last?.end == true)
        var result: [UInt8]?
        for fragment in fragments {
            result = try reassembler.append(fragment.body, end: fragment.end)
        }
        #expect(result == message)
        #expect(throws: ChannelError(.messageTooLarge((1 << 20) + 1))) {
            try Fragmenter.fragments(of: [UInt8](repeating: 0, count: (1 << 20) + 1))
        }
        let empty = try Fragmenter.fragments(of: [])
        #expect(empty.count == 1 && empty[0].end && empty[0].body.isEmpty)
    }

    /// §7.2 item 33: the triggers fire at exactly 2^16 frames, 64 MiB and 10 minutes.
    @Test func item33RekeyTriggersFireExactlyAtTheLimits() {
        let start = ContinuousClock.now
        var frames = RekeyPolicy()
        for _ in 0..<65_535 { frames.recordFrame(wireBytes: 21, now: start) }
        #expect(!frames.isDue(now: start))
        frames.recordFrame(wireBytes: 21, now: start)
        #expect(frames.isDue(now: start) && frames.isDue(now: nil))

        var bytes = RekeyPolicy()
        bytes.recordFrame(wireBytes: (64 << 20) - 1, now: start)
        #expect(!bytes.isDue(now: start))
        bytes.recordFrame(wireBytes: 1, now: start)
        #expect(bytes.isDue(now: start))

        var time = RekeyPolicy()
        #expect(!time.isDue(now: start + .seconds(3_600)))  // no traffic, no rekey
        time.recordFrame(wireBytes: 21, now: start)
        #expect(!time.isDue(now: start + .seconds(600) - .nanoseconds(1)))
        #expect(time.isDue(now: start + .seconds(600)))
        #expect(!time.isDue(now: nil))
        time.recordRekey(now: start + .seconds(600))
        #expect(time.framesSinceRekey == 0 && time.bytesSinceRekey == 0)
        #expect(!time.isDue(now: start + .seconds(1_200)))  // no traffic since the rekey
    }
}
