import FoundationEssentials
import Testing

@testable import LanChatControl

/// `ControlJSONWritable` must write exactly what `JSONEncoder` writes: the golden texts of the
/// contract, and byte-for-byte equality on generated values full of characters that need
/// escaping, edge numbers and nulls.
@Suite struct ControlJSONOutputTests {
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

    @Test(arguments: 0..<20 as Range<UInt64>)
    func generatedMessagesAndPeersWriteAsJSONEncoderDoes(seed: UInt64) throws {
        var generator = SampleGenerator(seed: seed)
        let messages = (0..<50).map { _ in generator.message() }
        for message in messages {
            #expect(Self.written(message) == (try Self.encoded(message)), "seed \(seed)")
        }
        let peer = generator.peer()
        #expect(Self.written(peer) == (try Self.encoded(peer)))
        let send = SendResult(messages: messages)
        #expect(Self.written(send) == (try Self.encoded(send)))
        let retry = RetryResult(messages: messages)
        #expect(Self.written(retry) == (try Self.encoded(retry)))
        var history = HistoryResult(
            peer: peer, messages: messages, hasOlder: seed % 2 == 0, hasNewer: seed % 3 == 0)
        #expect(Self.written(history) == (try Self.encoded(history)))
        // A group's page, with the keys written only when true (found by QA: the writer left
        // `left` out, so `history` of a group we had left offered to send to it).
        var group = GroupInfo(
            id: String(repeating: "ab", count: 16), name: "ops", members: [peer], version: seed)
        group.left = seed % 2 == 0 ? true : nil
        group.request = seed % 3 == 0 ? true : nil
        history.group = group
        #expect(Self.written(history) == (try Self.encoded(history)), "seed \(seed)")
        let empty = SendResult(messages: [])
        #expect(Self.written(empty) == (try Self.encoded(empty)))
        var idsOnly = SendResult(ids: messages.map(\.id))
        #expect(Self.written(idsOnly) == (try Self.encoded(idsOnly)))
        // A held send's answer, with and without the earlier key.
        idsOnly.keyChange = KeyChangeInfo(
            peer: generator.candidate(), previous: seed % 2 == 0 ? generator.candidate() : nil)
        #expect(Self.written(idsOnly) == (try Self.encoded(idsOnly)))
        var held = send
        held.keyChange = idsOnly.keyChange
        #expect(Self.written(held) == (try Self.encoded(held)))
    }

    /// Only a peer's made-up clock gets there; both writers clamp it the same way.
    @Test(arguments: [Int64.min, .max, Timestamp.representable.lowerBound - 1, -1, 0])
    func timestampsAtAndBeyondTheEdgesWriteAsJSONEncoderDoes(milliseconds: Int64) throws {
        let time = Timestamp(millisecondsSince1970: milliseconds)
        let message = MessageInfo(
            id: "i", peer: "p", direction: .outgoing, seq: 1, text: "t", createdAt: time,
            status: .delivered, deliveredAt: time, readAt: time)
        #expect(Self.written(message) == (try Self.encoded(message)))
    }

    /// The client writes `send` requests itself: the same bytes as `JSONEncoder`, for every
    /// kind of text and id, both forms (`text`, `texts`), and timeouts of every shape.
    @Test(arguments: 0..<20 as Range<UInt64>)
    func sendRequestsWriteAsJSONEncoderDoes(seed: UInt64) throws {
        var generator = SampleGenerator(seed: seed)
        for _ in 0..<50 {
            let many = generator.chance(50)
            let params = SendParams(
                peer: generator.text(), text: many ? nil : generator.text(),
                texts: many ? (0..<generator.below(20)).map { _ in generator.text() } : nil,
                wait: generator.maybe { $0.chance(50) },
                waitRead: generator.maybe { $0.chance(50) },
                timeout: generator.maybe { $0.timeout() })
            let ids: [RPCID] = [
                .number(.min), .number(.max), .number(0), .string(generator.text()),
            ]
            let request = RPCRequest(id: generator.pick(ids), method: "send", params: params)
            let written = try #require(request.writtenLine())
            #expect(written == Array(try ControlJSON.encoder().encode(request)), "seed \(seed)")
        }
    }

    /// Infinity and NaN: `JSONEncoder` throws, so the writer gives the request back to it (and
    /// the client reports the encoder's error); params that do not write themselves likewise.
    @Test(arguments: [Double.infinity, -.infinity, .nan, .signalingNaN])
    func requestsTheWriterCannotHoldGoToJSONEncoder(timeout: Double) {
        let send = RPCRequest(
            id: .number(1), method: "send",
            params: SendParams(peer: "b", text: "x", timeout: timeout))
        #expect(send.writtenLine() == nil)
        #expect(throws: EncodingError.self) { try ControlJSON.encoder().encode(send) }
        let history = RPCRequest(
            id: .number(1), method: "history", params: HistoryParams(peer: "b"))
        #expect(history.writtenLine() == nil)
    }

    @Test(arguments: [
        RPCID?.none, .number(0), .number(-1), .number(.max), .number(.min), .string(""),
        .string("a\"b\\c\u{1}/é"), .decimal(Decimal(string: "1.5") ?? 0),
        .decimal(Decimal(string: "-0.0000001") ?? 0),
        .decimal(Decimal(string: "18446744073709551616") ?? 0),
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
}
