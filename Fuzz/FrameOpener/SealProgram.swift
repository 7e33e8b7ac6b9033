import LanChatCore
import LanChatCrypto
import LanChatFuzzSupport

/// One frame as the sealer produced it: where it lies in the clean stream and what it
/// carries, so the harness can say what the opener must deliver.
struct SealedFrame {
    let range: Range<Int>
    let plaintext: [UInt8]
    let tag: UInt8
}

/// The sender's side of one run: the frames sealed by a real `FrameSealer`, the clean
/// stream they form, and the stream actually delivered (with garbage and mutations applied).
///
/// Input after the chunking byte: operations until the input ends, each `opcode ‖ operands`,
/// `(opcode & 0x7F) % 9` choosing (bit 7 is a modifier):
///
/// | op | operands | effect |
/// |---|---|---|
/// | 0 | u16 size, fill | `sealMessage` of `size` bytes (× 17 with bit 7: multi-fragment, > 1 MiB) |
/// | 1 | type, flags, tag, n, n bytes | any frame via the sealer's raw test hook |
/// | 2 | u16 size, flags, fill | a DATA fragment of up to 65 516 bytes (reassembly overflow) |
/// | 3, 4 | n, n bytes | PING, PONG |
/// | 5 | u16 reason | CLOSE (the sealer refuses everything after it) |
/// | 6 | n, n bytes | garbage inserted into the delivered stream |
/// | 7 | u16 position, bit | a bit flipped in the delivered stream |
/// | 8 | kind, u16 position, u16 length | truncate / delete a range / duplicate a range |
struct SealProgram {
    private(set) var frames: [SealedFrame] = []
    private(set) var clean: [UInt8] = []
    private(set) var delivered: [UInt8] = []

    /// Keeps one run's memory and time bounded: just over 1 MiB, enough for one message at
    /// the limit and the fragment that overflows it (large runs cost page faults, not logic).
    static let byteBudget = (1 << 20) + 2 * WireLimits.maximumFrameLength
    static let operationLimit = 200

    mutating func run(_ input: inout FuzzInput, sealer: inout FrameSealer) {
        var operations = 0
        while !input.isAtEnd, operations < Self.operationLimit, clean.count < Self.byteBudget {
            operations += 1
            let opcode = input.byte()
            let operation = (opcode & 0x7F) % 9
            switch operation {
            case 0:
                let size = Int(input.u16()) * (opcode & 0x80 != 0 ? 17 : 1)
                let message = Self.pattern(size, fill: input.byte())
                seal(&sealer, expecting: Self.fragments(of: message)) {
                    sealer, out throws(ChannelError) in
                    try sealer.sealMessage(message, now: .now, into: &out)
                }
            case 1:
                let type = input.byte()
                let flags = input.byte()
                let tag = input.byte()
                let body = input.take(Int(input.byte()))
                seal(&sealer, expecting: [([type, flags] + body, tag)]) {
                    sealer, out throws(ChannelError) in
                    try sealer.sealRawFrameForTesting(
                        type: type, flags: flags, body: body, tag: tag, into: &out)
                }
            case 2:
                let size = min(Int(input.u16()), WireLimits.maximumFrameBody)
                let flags = input.byte()
                let body = Self.pattern(size, fill: input.byte())
                seal(&sealer, expecting: [([1, flags] + body, 0)]) {
                    sealer, out throws(ChannelError) in
                    try sealer.sealRawFrameForTesting(
                        type: 1, flags: flags, body: body, tag: 0, into: &out)
                }
            case 3, 4:
                let isPing = operation == 3
                let body = input.take(Int(input.byte()))
                seal(&sealer, expecting: [([isPing ? 2 : 3, 0] + body, 0)]) {
                    sealer, out throws(ChannelError) in
                    if isPing {
                        try sealer.sealPing(body, into: &out)
                    } else {
                        try sealer.sealPong(body, into: &out)
                    }
                }
            case 5:
                let reason = input.u16()
                let plaintext: [UInt8] = [5, 0, UInt8(reason >> 8), UInt8(reason & 0xFF)]
                seal(&sealer, expecting: [(plaintext, 3)]) { sealer, out throws(ChannelError) in
                    try sealer.sealClose(CloseReason(rawValue: reason), into: &out)
                }
            case 6:
                delivered += input.take(Int(input.byte()))
            case 7:
                let position = Int(input.u16())
                let bit = input.byte() & 7
                if !delivered.isEmpty {
                    delivered[position % delivered.count] ^= 1 << bit
                }
            default:
                mutate(kind: input.byte(), position: Int(input.u16()), length: Int(input.u16()))
            }
        }
    }

    private mutating func mutate(kind: UInt8, position: Int, length: Int) {
        guard !delivered.isEmpty else { return }
        let start = position % (delivered.count + 1)
        let end = min(start + length, delivered.count)
        switch kind % 3 {
        case 0: delivered.removeSubrange(start...)
        case 1: delivered.removeSubrange(start..<end)
        default: delivered.insert(contentsOf: delivered[start..<end], at: end)
        }
    }

    /// Runs one sealing call; when it succeeds its output must be exactly the expected frames.
    private mutating func seal(
        _ sealer: inout FrameSealer, expecting expected: [(plaintext: [UInt8], tag: UInt8)],
        _ body: (inout FrameSealer, inout [UInt8]) throws(ChannelError) -> Void
    ) {
        var out: [UInt8] = []
        let usable = sealer.isUsable
        do {
            try body(&sealer, &out)
        } catch {
            fuzzCheck(out.isEmpty, "a failed seal (\(error)) still wrote \(out.count) bytes")
            let allowed: Bool
            switch error.code {
            case .closed: allowed = !usable
            case .messageTooLarge: allowed = true
            default: allowed = false
            }
            fuzzCheck(allowed, "sealing failed unexpectedly: \(error)")
            return
        }
        fuzzCheck(usable, "a sealer that was not usable sealed a frame")
        // Split the output at its length prefixes: one frame per expected plaintext.
        var offset = 0
        for frame in expected {
            let length = out.count - offset >= 2 ? Int(out[offset]) << 8 | Int(out[offset + 1]) : -1
            fuzzCheck(
                length == frame.plaintext.count + WireLimits.streamOverhead
                    && offset + 2 + length <= out.count,
                "sealed frame of \(length) bytes for a plaintext of \(frame.plaintext.count)")
            let start = clean.count + offset
            frames.append(
                SealedFrame(
                    range: start..<(start + 2 + length), plaintext: frame.plaintext,
                    tag: frame.tag))
            offset += 2 + length
        }
        fuzzCheck(offset == out.count, "the sealer wrote \(out.count - offset) unexpected bytes")
        clean += out
        delivered += out
    }

    /// DATA fragments of at most 65 516 bytes, END on the last; an empty message is one empty
    /// fragment with END (PROTOCOL.md §4.2).
    static func fragments(of message: [UInt8]) -> [(plaintext: [UInt8], tag: UInt8)] {
        guard message.count <= WireLimits.maximumMessage else { return [] }
        var result: [(plaintext: [UInt8], tag: UInt8)] = []
        var start = 0
        repeat {
            let end = min(start + WireLimits.maximumFrameBody, message.count)
            result.append(([1, end == message.count ? 1 : 0] + message[start..<end], 0))
            start = end
        } while start < message.count
        return result
    }

    /// Deterministic filler with a period of 251 (prime to every frame size that matters), so
    /// misplaced bytes show; built by block copies because messages reach 1 MiB.
    static func pattern(_ count: Int, fill: UInt8) -> [UInt8] {
        let block = (0..<251).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(fill)) }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count + block.count <= count { out += block }
        out += block.prefix(count - out.count)
        return out
    }
}
