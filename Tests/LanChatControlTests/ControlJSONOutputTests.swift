import FoundationEssentials
import Testing

@testable import LanChatControl

/// `ControlJSONWritable` must write exactly what `JSONEncoder` writes: the golden texts of the
/// contract, and byte-for-byte equality on generated values full of characters that need
/// escaping, edge numbers and nulls.
@Suite struct ControlJSONOutputTests {
    /// SplitMix64: a seeded generator, so a failure replays from its seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func written(_ value: some ControlJSONWritable) -> String {
        var output = ControlJSONOutput()
        value.write(to: &output)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try ControlJSON.encoder().encode(value), as: UTF8.self)
    }

    @Test func writesTheGoldenTexts() {
        #expect(Self.written(Fixtures.outgoing) == Fixtures.outgoingJSON)
        #expect(Self.written(Fixtures.incoming) == Fixtures.incomingJSON)
        #expect(Self.written(Fixtures.failed) == Fixtures.failedJSON)
        #expect(Self.written(Fixtures.bob) == Fixtures.bobJSON)
        #expect(Self.written(Fixtures.stranger) == Fixtures.strangerJSON)
    }

    @Test func everyCharacterThatNeedsEscapingIsEscapedAsFoundationDoes() throws {
        let awkward =
            (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }.joined()
            + "/é😀\u{2028}\u{2029}\u{FEFF}\u{85}e\u{301}"
        let message = MessageInfo(
            id: awkward, peer: "", direction: .incoming, seq: 0, text: awkward,
            createdAt: Timestamp(millisecondsSince1970: 0), failReason: awkward)
        #expect(Self.written(message) == (try Self.encoded(message)))
    }

    @Test(arguments: 0..<20)
    func generatedMessagesAndPeersWriteAsJSONEncoderDoes(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let messages = (0..<50).map { _ in Self.message(using: &random) }
        for message in messages {
            #expect(Self.written(message) == (try Self.encoded(message)), "seed \(seed)")
        }
        let peer = Self.peer(using: &random)
        #expect(Self.written(peer) == (try Self.encoded(peer)))
        let send = SendResult(messages: messages)
        #expect(Self.written(send) == (try Self.encoded(send)))
        let retry = RetryResult(messages: messages)
        #expect(Self.written(retry) == (try Self.encoded(retry)))
        let history = HistoryResult(peer: peer, messages: messages, hasOlder: seed % 2 == 0)
        #expect(Self.written(history) == (try Self.encoded(history)))
        #expect(
            Self.written(SendResult(messages: [])) == (try Self.encoded(SendResult(messages: []))))
    }

    @Test(arguments: [
        RPCID?.none, .number(0), .number(-1), .number(.max), .number(.min), .string(""),
        .string("a\"b\\c\u{1}/é"),
    ])
    func responseLinesMatchTheEncoderForEveryKindOfID(id: RPCID?) throws {
        let success = RPCResponse(id: id, result: SendResult(messages: [Fixtures.outgoing]))
        #expect(try success.encodedLine() == Array(try ControlJSON.encoder().encode(success)))
        // An error, and a result type that does not write itself, go through JSONEncoder.
        let failure = RPCResponse<SendResult>(id: id, error: .badInput("empty message"))
        #expect(try failure.encodedLine() == Array(try ControlJSON.encoder().encode(failure)))
        let status = RPCResponse(id: id, result: Fixtures.status)
        #expect(try status.encodedLine() == Array(try ControlJSON.encoder().encode(status)))
    }

    // MARK: Generators

    /// Characters chosen to hit every escaping branch and multi-byte UTF-8.
    static let alphabet: [String] =
        ["a", "Z", " ", "0", "\"", "\\", "/", "\u{7F}", "é", "😀", "\u{2028}", "e\u{301}", "{"]
        + (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }

    static func text(using random: inout SeededGenerator, maxLength: Int = 40) -> String {
        let length = Int.random(in: 0...maxLength, using: &random)
        return (0..<length).map { _ in alphabet.randomElement(using: &random) ?? "" }.joined()
    }

    static func timestamp(using random: inout SeededGenerator) -> Timestamp {
        let edges: [Int64] = [
            0, -1, Timestamp.representable.lowerBound, Timestamp.representable.upperBound,
            .min, .max, 1_795_242_588_123,
        ]
        let milliseconds =
            Bool.random(using: &random)
            ? edges.randomElement(using: &random) ?? 0
            : Int64.random(in: Timestamp.representable, using: &random)
        return Timestamp(millisecondsSince1970: milliseconds)
    }

    static func maybe<Value>(
        _ make: (inout SeededGenerator) -> Value, using random: inout SeededGenerator
    ) -> Value? {
        Bool.random(using: &random) ? make(&random) : nil
    }

    static func message(using random: inout SeededGenerator) -> MessageInfo {
        let seqs: [UInt64] = [0, 1, 9, 10, 99, .max, .max - 1, 1 << 53]
        return MessageInfo(
            id: text(using: &random, maxLength: 36), peer: text(using: &random, maxLength: 52),
            direction: Bool.random(using: &random) ? .incoming : .outgoing,
            seq: Bool.random(using: &random)
                ? seqs.randomElement(using: &random) ?? 0
                : UInt64.random(in: 0...(.max), using: &random),
            text: text(using: &random, maxLength: 200),
            createdAt: timestamp(using: &random),
            receivedAt: maybe({ timestamp(using: &$0) }, using: &random),
            read: maybe({ Bool.random(using: &$0) }, using: &random),
            status: maybe(
                { MessageStatus.allCases.randomElement(using: &$0) ?? .queued }, using: &random),
            failReason: maybe({ text(using: &$0) }, using: &random),
            deliveredAt: maybe({ timestamp(using: &$0) }, using: &random),
            readAt: maybe({ timestamp(using: &$0) }, using: &random))
    }

    static func peer(using random: inout SeededGenerator) -> PeerInfo {
        PeerInfo(
            id: text(using: &random, maxLength: 52), keyTag: text(using: &random, maxLength: 9),
            name: text(using: &random), alias: maybe({ text(using: &$0) }, using: &random),
            presence: Presence.allCases.randomElement(using: &random) ?? .online,
            status: Availability.allCases.randomElement(using: &random) ?? .available,
            statusText: text(using: &random),
            trust: Trust.allCases.randomElement(using: &random) ?? .unverified,
            contact: Bool.random(using: &random),
            lastSeen: maybe({ timestamp(using: &$0) }, using: &random),
            addresses: (0..<Int.random(in: 0...3, using: &random)).map { _ in
                text(using: &random, maxLength: 20)
            })
    }
}
