import FoundationEssentials
import LanChatControl
import LanChatTestSupport

/// Generated values for the fast-decoding equivalence tests: deterministic (a fixed seed), and
/// biased toward what breaks JSON readers: escapes, control characters, non-BMP characters,
/// line separators, empty and null optionals, extreme integers and timestamps.
struct SampleGenerator: RandomNumberGenerator {
    private var seeded: SeededGenerator

    init(seed: UInt64) {
        seeded = SeededGenerator(seed: seed)
    }

    mutating func next() -> UInt64 { seeded.next() }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[below(elements.count)]
    }

    /// Pieces texts are made of; every control character is among them.
    static let pieces: [String] =
        [
            "", "a", "hello", " ", "\"", "\\", "/", "\\/", "\u{7F}", "😀", "👍🏽", "\u{2028}",
            "\u{2029}", "é", "e\u{301}", "日本語", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}",
            "\u{D7FF}", "\u{E000}", "\\u00e9", "{\"x\":[1,2]}", "null", "abcdefghijklmnop0123",
        ] + (0..<0x20).map { String(Character(Unicode.Scalar(UInt8($0)))) }

    mutating func text() -> String {
        (0..<below(12)).map { _ in pick(Self.pieces) }.joined()
    }

    mutating func timestamp() -> Timestamp {
        let range = Timestamp.representable
        let edges: [Int64] = [
            range.lowerBound, range.lowerBound + 1, range.upperBound, range.upperBound - 1, 0, -1,
            1, 951_782_400_000, 1_795_242_588_123,
        ]
        if chance(40) { return Timestamp(millisecondsSince1970: pick(edges)) }
        let span = UInt64(range.upperBound - range.lowerBound)
        return Timestamp(millisecondsSince1970: range.lowerBound + Int64(next() % span))
    }

    /// A finite Double: round numbers, edges of the range, and arbitrary bit patterns.
    mutating func timeout() -> Double {
        let edges: [Double] = [
            0, -0.0, 1, 10, 30, 86_400, 0.5, 0.1, 1e-7, 1e16, 1e21, 1e22, .leastNonzeroMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude,
        ]
        if chance(40) { return pick(edges) }
        let random = Double(bitPattern: next())
        return random.isFinite ? random : Double(below(100_000)) / 8
    }

    mutating func seq() -> UInt64 {
        chance(40) ? pick([0, 1, 9, 10, UInt64(Int64.max), UInt64.max - 1, UInt64.max]) : next()
    }

    mutating func maybe<Value>(_ make: (inout Self) -> Value) -> Value? {
        chance(50) ? make(&self) : nil
    }

    mutating func message() -> MessageInfo {
        var message = MessageInfo(
            id: text(), peer: chance(80) ? String(repeating: "p", count: 52) : text(),
            direction: pick([.incoming, .outgoing]), seq: seq(), text: text(),
            createdAt: timestamp(), receivedAt: maybe { $0.timestamp() },
            read: maybe { $0.chance(50) }, status: maybe { $0.pick(MessageStatus.allCases) },
            failReason: maybe { $0.text() }, deliveredAt: maybe { $0.timestamp() },
            readAt: maybe { $0.timestamp() })
        // Only ever true on the wire (the key is absent otherwise).
        message.truncated = chance(20) ? true : nil
        // A group message, with its members' copies (QA found a copy's failReason missing
        // from the fast writer, which these samples did not reach).
        if chance(30) {
            message.group = text()
            message.sender = maybe { $0.text() }
            message.recipients = maybe { generator in
                (0..<generator.below(4)).map { _ in
                    RecipientInfo(
                        peer: generator.text(), status: generator.pick(MessageStatus.allCases),
                        deliveredAt: generator.maybe { $0.timestamp() },
                        readAt: generator.maybe { $0.timestamp() },
                        failReason: generator.maybe { $0.text() })
                }
            }
        }
        return message
    }

    mutating func peer() -> PeerInfo {
        PeerInfo(
            id: text(), keyTag: text(), name: text(), alias: maybe { $0.text() },
            presence: pick(Presence.allCases), status: pick(Availability.allCases),
            statusText: text(), trust: pick(Trust.allCases), contact: chance(50),
            lastSeen: maybe { $0.timestamp() }, addresses: (0..<below(4)).map { _ in text() })
    }

    mutating func candidate() -> PeerCandidate {
        PeerCandidate(id: text(), keyTag: text(), name: text(), alias: maybe { $0.text() })
    }

    /// A `send` answer's key change (the messages are held), or none, as most answers.
    mutating func keyChange() -> KeyChangeInfo? {
        chance(25) ? KeyChangeInfo(peer: candidate(), previous: maybe { $0.candidate() }) : nil
    }

    mutating func messages() -> [MessageInfo] {
        (0..<below(6)).map { _ in message() }
    }
}

enum FastDecodingSamples {
    /// Up to three random byte changes (replace, insert, delete) of bytes that matter to a
    /// JSON reader: what the "damaged documents never decode differently" tests feed both
    /// paths.
    static func damage(_ bytes: inout [UInt8], using generator: inout SampleGenerator) {
        let interesting =
            Array(#"{}[]:,"\/ -+.0179eEuntrfalsd"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xFF]
        for _ in 0...generator.below(3) where !bytes.isEmpty {
            let at = generator.below(bytes.count)
            switch generator.below(3) {
            case 0: bytes[at] = generator.pick(interesting)
            case 1: bytes.insert(generator.pick(interesting), at: at)
            default: bytes.remove(at: at)
            }
        }
    }

    static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        Array(try ControlJSON.encoder().encode(value))
    }

    /// What the JSONDecoder path answers, or nil where it throws.
    static func slow<Value: Decodable>(_ type: Value.Type, _ bytes: [UInt8]) -> Value? {
        try? ControlJSON.decoder().decode(type, from: Data(bytes))
    }
}
