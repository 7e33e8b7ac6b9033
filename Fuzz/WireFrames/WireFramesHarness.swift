import LanChatCore
import LanChatFuzzSupport

/// `FrameReader` (PROTOCOL.md §4.5), `TransportFrame.decode` and `Reassembler` (§4.2) under
/// fuzzing, all pure LanChatCore with no cryptography in the way.
///
/// Input: `mode ‖ chunking ‖ reassembly limit ‖ [bounds, for mode 3] ‖ stream`. The stream is
/// read once in one piece and once in chunks; both must give exactly the items (or the
/// rejected length) of `ExpectationPlan.model`. Every item is then taken as `tag ‖ plaintext`
/// and decoded, and DATA bodies are reassembled, each compared with `FrameModel`.
enum WireFramesHarness {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        let chunking = input.byte()
        let limitSelector = input.byte()
        let plan = ExpectationPlan.make(mode: mode, input: &input)
        let stream = input.rest()

        let expected = plan.model(stream)
        let whole = read(stream, plan: plan, chunks: [stream[...]])
        fuzzCheck(
            whole == expected,
            "FrameReader in one piece gave \(whole), the model \(expected); plan \(plan.phases)")
        let chunked = read(
            stream, plan: plan, chunks: fuzzChunks(stream, selector: max(chunking, 1)))
        fuzzCheck(
            chunked == expected,
            "FrameReader in chunks (\(chunking)) gave \(chunked), the model \(expected)")

        let limit =
            limitSelector == 0xFF ? WireLimits.maximumMessage : (Int(limitSelector) + 1) * 61
        decodeAndReassemble(expected.items, limit: limit)
    }

    /// Feeds the chunks to one reader the way a connection does and records what comes out.
    static func read(
        _ stream: [UInt8], plan: ExpectationPlan, chunks: [ArraySlice<UInt8>]
    ) -> ReaderOutcome {
        var reader = FrameReader()
        var outcome = ReaderOutcome()
        var reservedCapacity: Int?
        var base = 0
        for chunk in chunks {
            let stopped = chunk.withUnsafeBytes { raw -> Bool in
                var offset = 0
                while offset < raw.count {
                    let expectation = plan.expectation(at: outcome.items.count)
                    let before = offset
                    do throws(FrameReader.LengthError) {
                        let complete = try reader.read(raw, offset: &offset, expecting: expectation)
                        // Reserved once at 65 535 (as the allocator rounded it), never grown.
                        let capacity = reader.bufferCapacity
                        fuzzCheck(
                            capacity >= WireLimits.maximumFrameLength
                                && capacity == (reservedCapacity ?? capacity),
                            "the read buffer is \(capacity) bytes")
                        reservedCapacity = capacity
                        fuzzCheck(offset > before || complete, "read made no progress")
                        guard complete else {
                            fuzzCheck(offset == raw.count, "an incomplete read left input")
                            return false
                        }
                        record(&reader, into: &outcome)
                    } catch {
                        outcome.rejectedLength = error.length
                        outcome.offsetAfterRejection = base + offset
                        fuzzCheck(!reader.hasPartialItem, "a rejected item is still partial")
                        return true
                    }
                }
                return false
            }
            if stopped { return outcome }
            base += chunk.count
        }
        outcome.endsInsidePartialItem = reader.hasPartialItem
        return outcome
    }

    static func record(_ reader: inout FrameReader, into outcome: inout ReaderOutcome) {
        let item = Array(reader.item)
        let viaPointer = reader.withItem { Array($0) }
        fuzzCheck(viaPointer == item, "withItem and item disagree")
        fuzzCheck(
            reader.lengthPrefix == [UInt8(item.count >> 8), UInt8(item.count & 0xFF)],
            "lengthPrefix \(reader.lengthPrefix) for an item of \(item.count) bytes")
        fuzzCheck(!reader.hasPartialItem, "a complete item counts as partial")
        outcome.items.append(item)
    }

    /// Each item as `tag ‖ type ‖ flags ‖ body`: the decoder and the reassembler against the
    /// model, frame by frame, the way a FrameOpener would use them after decryption.
    static func decodeAndReassemble(_ items: [[UInt8]], limit: Int) {
        var reassembler = Reassembler(limit: limit)
        var model = ReassemblyModel(limit: limit)
        for item in items where !item.isEmpty {
            let plaintext = Array(item.dropFirst())
            let decoded = TransportFrame.decode(plaintext[...], tag: item[0])
            let expected = FrameModel.decode(plaintext, tag: item[0])
            fuzzCheck(
                decoded == expected,
                "decode(\(fuzzHex(item.prefix(8)))…) gave \(decoded), the model \(expected)")
            guard case .success(.data(let body, let end)) = decoded else { continue }
            let joined: Result<[UInt8]?, ChannelError>
            do {
                joined = .success(try reassembler.append(body, end: end))
            } catch {
                joined = .failure(error)
            }
            let modelled = model.append(body, end: end)
            fuzzCheck(
                joined == modelled, "reassembly gave \(joined), the model \(modelled)")
            fuzzCheck(
                reassembler.bytesInProgress == model.pending.count,
                "\(reassembler.bytesInProgress) bytes in progress, the model \(model.pending.count)"
            )
            // Capacity stays at the limit (plus what malloc rounds up to).
            fuzzCheck(
                reassembler.capacity <= limit + 4096,
                "reassembly buffer capacity \(reassembler.capacity) over the limit \(limit)")
        }
    }
}
