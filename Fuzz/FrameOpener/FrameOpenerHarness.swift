import LanChatCore
import LanChatCrypto
import LanChatFuzzChannel
import LanChatFuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `FrameOpener.receive` (PROTOCOL.md §4, §7.5 "stream mutation" and "partial reads") after a
/// real handshake between two `ChannelHandshake`s in memory: the initiator's `FrameSealer`
/// seals what the input asks for (any type, flags and tag through its test hook), the stream
/// is damaged as the input asks, and the responder's opener reads it in chunks.
///
/// Properties: on an undamaged stream the opener delivers exactly `OpenerExpectation` (events
/// and error); on a damaged one it delivers every event of the frames before the first
/// damaged byte and never anything that was not sent (its events are a prefix of the
/// undamaged ones). After an error it is unusable; the end of input without CLOSE is
/// "truncated".
enum FrameOpenerHarness {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let chunking = input.byte()
        let pair = InMemoryHandshake.vectorPair()
        let initiatorHalves = pair.initiator.split()
        let responderHalves = pair.responder.split()
        var sealer = initiatorHalves.sealer
        var opener = responderHalves.opener

        var program = SealProgram()
        program.run(&input, sealer: &sealer)

        var events: [ChannelEvent] = []
        var failure: ChannelError?
        for chunk in fuzzChunks(program.delivered, selector: chunking) {
            let result = chunk.withUnsafeBytes { raw in
                Result { () throws(ChannelError) in try opener.receive(raw, into: &events) }
            }
            if case .failure(let error) = result {
                failure = error
                break
            }
        }
        fuzzTrace(
            "\(program.frames.count) frames, \(program.delivered.count) bytes delivered: "
                + "\(describe(events)), \(failure.map { "\($0)" } ?? "no error")")
        check(program, events: events, failure: failure, opener: &opener)
    }

    static func check(
        _ program: SealProgram, events: [ChannelEvent], failure: ChannelError?,
        opener: inout FrameOpener
    ) {
        let all = OpenerExpectation(program.frames[...])
        let damage = firstDifference(program.clean, program.delivered)
        let intactCount = damage.map { at in
            program.frames.prefix { $0.range.upperBound <= at }.count
        }
        let intact = OpenerExpectation(program.frames.prefix(intactCount ?? program.frames.count))

        fuzzCheck(
            startsWith(events, intact.events) && startsWith(all.events, events),
            """
            opener delivered \(describe(events)); the frames before the damage at \
            \(String(describing: damage)) carry \(describe(intact.events)), all frames \
            \(describe(all.events))
            """)
        if damage == nil || intact.error != nil {
            fuzzCheck(
                failure == intact.error && same(events, intact.events),
                """
                opener ended with \(String(describing: failure)) after \(describe(events)); \
                expected \(String(describing: intact.error)) after \(describe(intact.events))
                """)
        }
        // A stream only cut short (no byte changed) is no error, just "possibly truncated".
        if let damage, damage == program.delivered.count, intact.error == nil {
            fuzzCheck(
                failure == nil && same(events, intact.events),
                "a truncated stream gave \(String(describing: failure)), \(describe(events))")
        }
        checkEnd(&opener, failed: failure != nil)
    }

    /// After an error the opener is unusable; after CLOSE the end of input is clean; otherwise
    /// the end of input is reported as possible truncation.
    static func checkEnd(_ opener: inout FrameOpener, failed: Bool) {
        if failed {
            var more: [ChannelEvent] = []
            do {
                try opener.receive([0, 0], into: &more)
                FuzzFailure.report("a failed opener accepted more input")
            } catch {
                fuzzCheck(error.code == .unusable, "a failed opener says \(error)")
            }
            return
        }
        let closed = opener.isClosed
        do {
            try opener.endOfInput()
            fuzzCheck(closed, "the end of input without CLOSE was accepted")
        } catch {
            fuzzCheck(!closed && error.code == .truncated, "end of input gave \(error)")
        }
    }

    /// `events` begins with `prefix`. Messages reach 1 MiB, so bytes are compared with memcmp
    /// rather than element by element (which costs a lot under the sanitizers).
    static func startsWith(_ events: [ChannelEvent], _ prefix: [ChannelEvent]) -> Bool {
        prefix.count <= events.count && zip(events, prefix).allSatisfy(same)
    }

    static func same(_ lhs: [ChannelEvent], _ rhs: [ChannelEvent]) -> Bool {
        lhs.count == rhs.count && startsWith(lhs, rhs)
    }

    static func same(_ lhs: ChannelEvent, _ rhs: ChannelEvent) -> Bool {
        switch (lhs, rhs) {
        case (.message(let a), .message(let b)), (.ping(let a), .ping(let b)),
            (.pong(let a), .pong(let b)):
            return equalBytes(a, b)
        case (.close(let a), .close(let b)):
            return a == b
        default:
            return false
        }
    }

    static func equalBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                guard let left = x.baseAddress, let right = y.baseAddress else { return true }
                return memcmp(left, right, x.count) == 0
            }
        }
    }

    /// The first offset where the delivered stream differs from the clean one; nil if equal.
    static func firstDifference(_ clean: [UInt8], _ delivered: [UInt8]) -> Int? {
        let common = min(clean.count, delivered.count)
        if equalBytes(Array(clean.prefix(common)), Array(delivered.prefix(common))) {
            return clean.count == delivered.count ? nil : common
        }
        for index in 0..<common where clean[index] != delivered[index] { return index }
        return clean.count == delivered.count ? nil : common
    }

    static func describe(_ events: [ChannelEvent]) -> String {
        let parts = events.map { event -> String in
            switch event {
            case .message(let bytes): "message(\(bytes.count) bytes)"
            case .ping(let body): "ping(\(fuzzHex(body.prefix(8))))"
            case .pong(let body): "pong(\(fuzzHex(body.prefix(8))))"
            case .close(let reason): "close(\(reason.rawValue))"
            }
        }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}
