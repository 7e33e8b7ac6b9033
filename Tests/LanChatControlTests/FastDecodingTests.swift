import FoundationEssentials
import LanChatControl
import Testing

/// The fast decoding path (`JSONReader`, `FastJSONDecodable`) must read every value exactly as
/// `JSONDecoder` does, and answer nil, never something else and never a crash, for anything it
/// does not accept: the client then asks `JSONDecoder`.
@Suite struct FastDecodingTests {
    typealias Samples = FastDecodingSamples

    static let peerID = String(repeating: "b", count: 52)
    static let t0 = Timestamp(millisecondsSince1970: 1_795_242_588_123)  // 2026-11-21T06:29:48.123Z

    // MARK: Equivalence on generated values

    @Test func generatedMessagesDecodeAsJSONDecoderDecodesThem() throws {
        var generator = SampleGenerator(seed: 1)
        for _ in 0..<500 {
            let messages = generator.messages()
            // Every third answer is an `idsOnly` one.
            var value =
                generator.chance(33)
                ? SendResult(ids: messages.map(\.id)) : SendResult(messages: messages)
            value.keyChange = generator.keyChange()
            let bytes = try Samples.encode(value)
            let fast = try #require(SendResult(json: bytes))
            #expect(fast == value)
            #expect(fast == Samples.slow(SendResult.self, bytes))
        }
    }

    @Test func generatedHistoriesDecodeAsJSONDecoderDecodesThem() throws {
        var generator = SampleGenerator(seed: 2)
        for _ in 0..<300 {
            var value = HistoryResult(
                peer: generator.peer(), messages: generator.messages(),
                hasOlder: generator.chance(50), hasNewer: generator.chance(50))
            if generator.chance(50) {
                // A group's, every key of it (found by QA: `left` was skipped).
                var group = GroupInfo(
                    id: String(repeating: "ab", count: 16), name: "ops",
                    members: [generator.peer(), generator.peer()], version: 3)
                group.request = generator.chance(50) ? true : nil
                group.left = generator.chance(50) ? true : nil
                value.group = group
            }
            let bytes = try Samples.encode(value)
            let fast = try #require(HistoryResult(json: bytes))
            #expect(fast == value)
            #expect(fast == Samples.slow(HistoryResult.self, bytes))
        }
    }

    // MARK: Hand-written JSON

    static let expected = MessageInfo(
        id: "0b7f3c9e", peer: peerID, direction: .incoming, seq: 18_446_744_073_709_551_615,
        text: "é😀/\"\\\u{8}\u{C}\n\r\t\u{0}\u{2028}", createdAt: t0, read: false)

    /// One message as people and other encoders might write it: escapes for everything,
    /// whitespace everywhere, keys in another order, unknown keys of every kind, optionals
    /// missing or null.
    static let handWritten = """
         \t\r
        { "text" : "\\u00e9\\ud83d\\ude00\\/\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u2028" ,
          "future": {"nested": [1, -2.5e+3, 0.0E-0, true, false, null, "\\u00E9", {}, []]},
          "seq":18446744073709551615, "direction":"in", "read":false, "status":null,
          "createdAt":"2026-11-21T06:29:48.123Z", "p\\u0065er":"\(peerID)",
          "id":"0b7f3c9e", "deliveredAt":null, "émoji 😀":"ignored"
        }\n
        """

    @Test func handWrittenJSONDecodesAsJSONDecoderDecodesIt() throws {
        let bytes = Array(Self.handWritten.utf8)
        #expect(MessageInfo(json: bytes) == Self.expected)
        #expect(Samples.slow(MessageInfo.self, bytes) == Self.expected)
    }

    @Test func escapedAndUnusualTimestampsAndIntegers() throws {
        let text =
            #"{"id":"i","peer":"p","direction":"out","seq":0,"text":"","#
            + #""createdAt":"2026-11-21t07:29:48.1234+01:00","readAt":"\u0032026-11-21T06:29:48Z"}"#
        let bytes = Array(text.utf8)
        let fast = try #require(MessageInfo(json: bytes))
        #expect(fast == Samples.slow(MessageInfo.self, bytes))
        #expect(fast.createdAt == Self.t0 && fast.seq == 0 && fast.status == nil)
    }

    @Test func peerWithEscapedKeysAndEmptyLists() throws {
        let text =
            #"{"addresses":[],"alias":null,"contact":false,"id":"x","keyTag":"K","name":"","#
            + #""presence":"offline","status":"busy","statusT\u0065xt":"\ud83d\ude00","#
            + #""trust":"blocked"}"#
        let bytes = Array(text.utf8)
        let fast = try #require(PeerInfo(json: bytes))
        #expect(fast == Samples.slow(PeerInfo.self, bytes))
        #expect(fast.statusText == "😀" && fast.lastSeen == nil)
    }

    @Test func keysCompareAsSwiftStringsCompare() {
        // A Kelvin sign is canonically equivalent to K: JSONDecoder matches it to the key Kx.
        let text = #"{"\u212Ax":1, "\u212A\u0078":2, "\#u{212A}x":3, "Kx":4, "kx":5, "K":6}"#
        let matched = JSONReader.read(Array(text.utf8)) { reader -> Int? in
            var count = 0
            let complete = reader.readObject { reader, key in
                if case "Kx" = key { count += 1 }
                return reader.skipValue()
            }
            return complete ? count : nil
        }
        #expect(matched == 4)
    }

    // MARK: Refusals

    static let valid = Array(#"{"messages":[\#(message())]}"#.utf8)

    static func message(seq: String = "7", text: String = #""hi""#) -> String {
        #"{"createdAt":"2026-11-21T06:29:48.123Z","deliveredAt":null,"direction":"out","#
            + #""failReason":null,"id":"i","peer":"p","read":null,"readAt":null,"#
            + #""receivedAt":null,"seq":\#(seq),"status":"queued","text":\#(text)}"#
    }

    static func send(_ message: String) -> String { #"{"messages":[\#(message)]}"# }

    /// Malformed JSON, or JSON of the wrong shape: JSONDecoder refuses all of these too.
    static let malformed: [String] = [
        "", " ", "{", "[]", "null", #"{"messages":null}"#, #"{"messages":{}}"#, #"{}"#,
        send(message(text: #""\q""#)), send(message(text: #""\u12""#)),
        send(message(text: #""\u12G4""#)), send(message(text: #""\ud83d""#)),
        send(message(text: #""\ude00""#)), send(message(text: #""\ud83d\u0041""#)),
        send(message(text: #""\ud83dx""#)), send(message(text: #""\ud83d\n""#)),
        send(message(text: "\"a\u{1}b\"")), send(message(text: "\"tab\tin\"")),
        send(message(text: #""unterminated"#)), send(message(text: "'single'")),
        send(message(seq: "18446744073709551616")), send(message(seq: "99999999999999999999")),
        send(message(seq: "-1")), send(message(seq: "1.5")), send(message(seq: "")),
        send(message(seq: #""7""#)), send(message(seq: "true")), send(message(seq: "null")),
        send(message(text: "7")), send(message(text: "null")), send(message(text: "[]")),
        send(message().replacing(#""out""#, with: #""OUT""#)),
        send(message().replacing(#""queued""#, with: #""lost""#)),
        send(message().replacing(#""read":null"#, with: #""read":0"#)),
        send(message().replacing("06:29:48.123Z", with: "06:29:48.123")),
        send(message().replacing(#","text":"hi""#, with: "")),
        send(message().replacing(#""id":"i","#, with: "")),
        send(message()) + " x", send(message()) + "}", send(message()) + "\0",
        #"{"messages":[],"other":.5}"#, #"{"messages":[],"other":+1}"#,
        #"{"messages":[],"other":NaN}"#, #"{"messages":[],"other":tru}"#,
        #"{"messages":[],"other":nul}"#, #"{"messages":[] "other":1}"#,
        #"{"messages":[],"other"}"#, #"{"messages" []}"#, #"{messages:[]}"#,
        send(message(seq: "07")), "{\"messages\":[]}\u{0B}",
    ]

    @Test(arguments: malformed)
    func malformedInputIsRefused(text: String) {
        let bytes = Array(text.utf8)
        #expect(SendResult(json: bytes) == nil)
        #expect(Samples.slow(SendResult.self, bytes) == nil)
    }

    /// JSONDecoder accepts these, reading some oddly (`7.0` as 7, the first of two keys); the
    /// fast path leaves them to it rather than copy each leniency.
    static let declined: [String] = [
        send(message(seq: "7.0")), send(message(seq: "7e0")), send(message(seq: "-0")),
        send(message() + "," + message()).replacing("]}", with: ",]}"),
        #"{"messages":[],}"#, #"{"messages":[],"messages":[]}"#,
        send(message().replacing("{", with: #"{"seq":8,"#)),
        send(message().replacing("{", with: #"{"read":true,"#)),
        #"{"messages":[],"other":"\ud83d"}"#, #"{"messages":[],"other":"\q"}"#,
        "{\"messages\":[],\"other\":\"\u{1}\"}", #"{"messages":[],"other":[1,2,]}"#,
        #"{"messages":[],"other":01}"#, #"{"messages":[],"other":-}"#,
        #"{"messages":[],"other":1.}"#, #"{"messages":[],"other":1e}"#,
        "\u{FEFF}" + send(message()),
    ]

    @Test(arguments: declined)
    func lenientInputIsLeftToJSONDecoder(text: String) {
        let bytes = Array(text.utf8)
        #expect(SendResult(json: bytes) == nil)
        #expect(Samples.slow(SendResult.self, bytes) != nil)
    }

    @Test func invalidUTF8WhereJSONDecoderDoesNotLookIsRefused() {
        let unknownValue = Array(#"{"messages":[],"other":""#.utf8) + [0xFF] + Array(#""}"#.utf8)
        let unknownKey = Array(#"{"messages":[],""#.utf8) + [0xC3, 0x28] + Array(#"":1}"#.utf8)
        #expect(SendResult(json: unknownValue) == nil)
        #expect(SendResult(json: unknownKey) == nil)
    }

    @Test func invalidUTF8InAValueIsRefused() {
        for bad: [UInt8] in [
            [0xFF], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        ] {
            let bytes = Array(#"{"messages":[\#(Self.message(text: "\"X\""))]}"#.utf8)
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "X")) else { return }
            var broken = bytes
            broken.replaceSubrange(mark...mark, with: bad)
            #expect(SendResult(json: broken) == nil)
            #expect(Samples.slow(SendResult.self, broken) == nil)
        }
    }

    @Test func everyTruncationIsRefused() throws {
        var generator = SampleGenerator(seed: 3)
        let bytes = try Samples.encode(
            SendResult(messages: [generator.message(), generator.message()]))
        for end in 0..<bytes.count {
            #expect(SendResult(json: Array(bytes[..<end])) == nil)
        }
    }

    @Test func deepNestingIsRefusedWithoutCrashing() {
        for depth in [63, 64, 1000, 100_000] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let bytes = Array(#"{"messages":[],"other":\#(nested)}"#.utf8)
            // The envelope is the first level: 63 more fit, 64 do not.
            #expect((SendResult(json: bytes) != nil) == (depth < JSONReader.maximumDepth))
        }
    }

    /// Whatever the fast path accepts, JSONDecoder reads the same: random damage to valid
    /// documents never makes the two disagree.
    @Test func damagedDocumentsNeverDecodeDifferently() throws {
        var generator = SampleGenerator(seed: 4)
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = try Samples.encode(SendResult(messages: [generator.message()]))
            Samples.damage(&bytes, using: &generator)
            if let fast = SendResult(json: bytes) {
                accepted += 1
                #expect(fast == Samples.slow(SendResult.self, bytes), "\(bytes)")
            }
        }
        // Damage inside a text often leaves valid JSON: the comparison above did happen.
        #expect(accepted > 300)
    }

    @Test func rawBuffersReadAsArraysDo() throws {
        let bytes = Array(Self.handWritten.utf8)
        let fromRaw = bytes.withUnsafeBytes { raw in
            JSONReader.read(raw) { $0.read(MessageInfo.self) }
        }
        #expect(fromRaw == Self.expected)
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        #expect(JSONReader.read(empty) { $0.read(MessageInfo.self) } == nil)
    }

    // MARK: Integers

    @Test func integersAreReadInRangeOnly() {
        func int(_ text: String) -> Int? { JSONReader.read(Array(text.utf8)) { $0.readInt() } }
        func uint(_ text: String) -> UInt64? {
            JSONReader.read(Array(text.utf8)) { $0.readUInt64() }
        }
        #expect(int("9223372036854775807") == Int.max)
        #expect(int("-9223372036854775808") == Int.min)
        #expect(int("9223372036854775808") == nil)
        #expect(int("-9223372036854775809") == nil)
        #expect(int(" -0 ") == 0)
        #expect(int("- 1") == nil)
        #expect(uint("18446744073709551615") == UInt64.max)
        #expect(uint("18446744073709551616") == nil)
        #expect(uint("184467440737095516150") == nil)
        #expect(uint("0") == 0)
        #expect(uint("-0") == nil)
        #expect(uint("1e3") == nil)
    }
}
