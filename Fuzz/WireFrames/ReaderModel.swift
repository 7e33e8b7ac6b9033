import LanChatCore
import LanChatFuzzSupport

/// What the reader must produce from a stream, worked out the plain way (PROTOCOL.md §4.5):
/// take 2 length bytes, check them against the bounds, take that many bytes. The harness
/// compares `FrameReader` with this, whatever the chunking.
struct ReaderOutcome: Equatable {
    var items: [[UInt8]] = []
    /// The out-of-bounds length that stopped the stream, if any.
    var rejectedLength: Int?
    /// Stream offset just after the rejected prefix (the reader must not take a body byte).
    var offsetAfterRejection: Int?
    /// True when the stream ends inside an item (part of a prefix or body read).
    var endsInsidePartialItem = false
}

/// The sequence of items a connection expects, by phase; after the listed ones the last
/// expectation repeats (the transport phase).
struct ExpectationPlan {
    let phases: [FrameReader.Expectation]

    func expectation(at index: Int) -> FrameReader.Expectation {
        phases[min(index, phases.count - 1)]
    }

    /// The plan for the mode byte: responder handshake, initiator handshake, transport only,
    /// or bounds chosen by the input (so short items and unusual bounds are reachable).
    static func make(mode: UInt8, input: inout FuzzInput) -> ExpectationPlan {
        let transport = FrameReader.Expectation.prefixed(WireLimits.transportFrameBounds)
        let header = FrameReader.Expectation.prefixed(
            WireLimits.streamHeaderLength...WireLimits.streamHeaderLength)
        switch mode % 4 {
        case 0:
            return ExpectationPlan(phases: [transport])
        case 1:
            return ExpectationPlan(phases: [
                .fixed(WireLimits.preambleLength), .prefixed(WireLimits.message1Bounds),
                .prefixed(WireLimits.message3Bounds), header, transport,
            ])
        case 2:
            return ExpectationPlan(phases: [
                .prefixed(WireLimits.message2Bounds), header, transport,
            ])
        default:
            let low = Int(input.u16())
            let high = Int(input.u16())
            let fixed = Int(input.byte())
            let bounds = min(low, high)...max(low, high)
            return ExpectationPlan(
                phases: fixed == 0 ? [.prefixed(bounds)] : [.fixed(fixed), .prefixed(bounds)])
        }
    }

    func model(_ stream: [UInt8]) -> ReaderOutcome {
        var outcome = ReaderOutcome()
        var offset = 0
        while offset < stream.count {
            switch expectation(at: outcome.items.count) {
            case .fixed(let count):
                let size = min(max(count, 0), WireLimits.maximumFrameLength)
                guard stream.count - offset >= size else {
                    outcome.endsInsidePartialItem = true
                    return outcome
                }
                outcome.items.append(Array(stream[offset..<offset + size]))
                offset += size
            case .prefixed(let bounds):
                guard stream.count - offset >= 2 else {
                    outcome.endsInsidePartialItem = true
                    return outcome
                }
                let length = Int(stream[offset]) << 8 | Int(stream[offset + 1])
                guard bounds.contains(length) else {
                    outcome.rejectedLength = length
                    outcome.offsetAfterRejection = offset + 2
                    return outcome
                }
                guard stream.count - offset - 2 >= length else {
                    outcome.endsInsidePartialItem = true
                    return outcome
                }
                outcome.items.append(Array(stream[offset + 2..<offset + 2 + length]))
                offset += 2 + length
            }
        }
        return outcome
    }
}
