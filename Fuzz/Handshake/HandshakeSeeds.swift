import LanChatCore
import LanChatCrypto
import LanChatFuzzChannel

/// Seeds: what a real initiator with the vector keys sends (first flight, msg3, header frame,
/// then a HELLO, a MSG, a PING and CLOSE sealed with its stream), in one piece and in chunks,
/// accepted and refused; then the malformed openings the handshake tests use.
enum HandshakeSeeds {
    static func prefixed(_ body: [UInt8]) -> [UInt8] {
        [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// The initiator's whole side of a session: handshake bytes, then sealed frames.
    static func session() -> [UInt8] {
        let pair = InMemoryHandshake.vectorPair()
        let transcript = pair.toResponder
        let halves = pair.initiator.split()
        var sealer = halves.sealer
        var frames: [UInt8] = []
        let hello = AppMessage.hello(
            Hello(
                name: "alice", presence: .available, statusText: "", outStream: 1, outNext: 1,
                inStream: 0, inDelivered: 0, inRead: 0))
        let id = MessageID(bytes: [UInt8](repeating: 0x42, count: 16)) ?? MessageID.random()
        let message = AppMessage.message(
            WireMessage(stream: 1, seq: 1, id: id, sentAt: 1_700_000_000_000, text: "hi bob"))
        do {
            try sealer.sealMessage(hello.encoded(), now: .now, into: &frames)
            try sealer.sealMessage(message.encoded(), now: .now, into: &frames)
            try sealer.sealPing([1, 2, 3, 4, 5, 6, 7, 8], into: &frames)
            try sealer.sealClose(.normal, into: &frames)
        } catch {
            return transcript
        }
        return transcript + frames
    }

    static func all() -> [(name: String, bytes: [UInt8])] {
        let session = session()
        let flight = VectorKeys.firstFlight
        let preamble = Array(flight.prefix(8))
        let message1 = Array(flight.dropFirst(10))
        var tampered = flight + prefixed(VectorKeys.message3)
        tampered[tampered.count - 1] ^= 0x01
        let seeds: [(String, UInt8, [UInt8])] = [
            ("session", 0x01, session),
            ("session-bytewise", 0x03, session),
            ("session-chunks", 0x1B, session),
            ("session-refused", 0x00, session),
            (
                "session-early-data", 0x01,
                Array(session.prefix(120)) + Array(session.dropFirst(146))
            ),
            ("first-flight", 0x01, flight),
            ("msg3-tampered", 0x01, tampered),
            ("bad-magic", 0x01, [0x48, 0x54, 0x54, 0x50, 1, 1, 0, 0] + Array(flight.dropFirst(8))),
            ("version-2", 0x01, [0x4C, 0x43, 0x48, 0x54, 2, 2, 0, 0] + Array(flight.dropFirst(8))),
            ("version-0", 0x01, [0x4C, 0x43, 0x48, 0x54, 0, 1, 0, 0]),
            ("max-below-wire", 0x01, [0x4C, 0x43, 0x48, 0x54, 1, 0, 0, 0]),
            (
                "reserved-set", 0x01,
                [0x4C, 0x43, 0x48, 0x54, 1, 1, 0xAB, 0xCD] + Array(flight.dropFirst(8))
            ),
            ("msg1-too-long", 0x01, preamble + prefixed(message1 + [0])),
            ("msg1-low-order", 0x01, preamble + prefixed([UInt8](repeating: 0, count: 32))),
            ("msg1-non-canonical", 0x01, preamble + prefixed([UInt8](repeating: 0xFF, count: 32))),
            ("msg3-too-short", 0x01, flight + prefixed(Array(VectorKeys.message3.prefix(75)))),
            ("msg3-too-long", 0x01, flight + [0x02, 0x41]),
            (
                "header-wrong-length", 0x01,
                Array(session.prefix(120)) + prefixed([UInt8](repeating: 0, count: 23))
            ),
        ]
        return seeds.map { (name: "seed-" + $0.0, bytes: [$0.1] + $0.2) }
    }
}
