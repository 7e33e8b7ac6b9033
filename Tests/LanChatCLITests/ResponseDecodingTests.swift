import FoundationEssentials
import LanChatClient
import LanChatControl
import Testing

/// What `ResponseDecoding` answers for a response line: the result, the daemon's own error, or
/// the message users see for a line this lanchat cannot read. The messages were recorded from
/// the JSONDecoder-only decoder, before the fast path existed, so they pin that the fast path
/// changes nothing but speed.
@Suite struct ResponseDecodingTests {
    static let peerID = String(repeating: "b", count: 52)
    static let createdAt = "2026-11-21T06:29:48.123Z"

    static func message(seq: String = "7", text: String = #""hi""#) -> String {
        #"{"createdAt":"\#(createdAt)","deliveredAt":null,"direction":"out","failReason":null,"#
            + #""id":"0b7f3c9e-3f1a-4c1e-9d55-0d6b1c1f2a10","peer":"\#(peerID)","read":null,"#
            + #""readAt":null,"receivedAt":null,"seq":\#(seq),"status":"queued","text":\#(text)}"#
    }

    static func sendLine(_ messages: String..., apiVersion: String = "1") -> String {
        #"{"apiVersion":\#(apiVersion),"id":3,"jsonrpc":"2.0","result":{"messages":["#
            + messages.joined(separator: ",") + "]}}"
    }

    static let expected = MessageInfo(
        id: "0b7f3c9e-3f1a-4c1e-9d55-0d6b1c1f2a10", peer: peerID, direction: .outgoing, seq: 7,
        text: "hi", createdAt: Timestamp(millisecondsSince1970: 1_795_242_588_123), status: .queued)

    func decode(_ line: String) throws(ControlError) -> SendResult {
        try ResponseDecoding.result(SendResult.self, from: Array(line.utf8))
    }

    func failure(_ line: String) -> String? {
        do {
            _ = try decode(line)
            return nil
        } catch {
            return error.message
        }
    }

    static let cannotRead = "lanchatd sent a response this lanchat cannot read"

    @Test func resultIsDecoded() throws {
        #expect(try decode(Self.sendLine(Self.message())) == SendResult(messages: [Self.expected]))
    }

    @Test func aDaemonErrorIsThrownAsIs() throws {
        let error = ControlError.peerAmbiguous(
            "b", candidates: [.init(id: Self.peerID, keyTag: "BBBB-BBBB", name: "b", alias: nil)])
        let object = try ControlJSON.encoder().encode(RPCErrorObject(error))
        let line =
            #"{"apiVersion":1,"error":"# + String(decoding: object, as: UTF8.self)
            + #","id":3,"jsonrpc":"2.0"}"#
        #expect(throws: error) { try decode(line) }
        #expect(throws: error) {
            try decode(line.replacing(#""id":3,"#, with: #""id":3,"result":null,"#))
        }
    }

    @Test func neitherResultNorError() {
        let neither = "lanchatd sent a response with neither a result nor an error"
        #expect(failure(#"{"apiVersion":1,"id":3,"jsonrpc":"2.0"}"#) == neither)
        #expect(failure(#"{"apiVersion":1,"id":3,"result":null,"error":null}"#) == neither)
    }

    /// Lines and the detail in the message users see (the error's path and kind).
    static let unreadable: [(line: String, detail: String)] = [
        ("", "not valid JSON"),
        ("not json", "not valid JSON"),
        (String(sendLine(message()).dropLast()), "not valid JSON"),
        (sendLine(message()) + " x", "not valid JSON"),
        (sendLine(message(text: #""\q""#)), "not valid JSON"),
        (sendLine(message(text: #""\ud83d""#)), "not valid JSON"),
        (sendLine(message(text: #""\ude00\ud83d""#)), "not valid JSON"),
        (sendLine(message(seq: "18446744073709551616")), "not valid JSON"),
        (sendLine(message(seq: "-1")), "not valid JSON"),
        (sendLine(message(seq: "1.5")), "not valid JSON"),
        (sendLine(message(seq: #""7""#)), "wrong type at 'result.messages.[0].seq'"),
        (sendLine(message(text: "7")), "wrong type at 'result.messages.[0].text'"),
        (sendLine(message(text: "null")), "wrong type at 'result.messages.[0].text'"),
        (
            sendLine(message().replacing(#","text":"hi""#, with: "")),
            "missing 'result.messages.[0].text'"
        ),
        (
            sendLine(message().replacing(#""out""#, with: #""sideways""#)),
            "bad value at 'result.messages.[0].direction'"
        ),
        (
            sendLine(message().replacing(createdAt, with: "yesterday")),
            "bad value at 'result.messages.[0].createdAt'"
        ),
        (#"{"apiVersion":"1","result":{"messages":[]}}"#, "wrong type at 'apiVersion'"),
        (#"{"apiVersion":1,"result":[]}"#, "wrong type at 'result'"),
        (#"{"apiVersion":1,"result":{}}"#, "missing 'result.ids'"),
        (#"{"apiVersion":1,"error":5}"#, "wrong type at 'error'"),
        (#"[{"apiVersion":1,"result":{"messages":[]}}]"#, "wrong type at ''"),
        (
            #"{"apiVersion":1,"id":"# + String(repeating: "[", count: 600)
                + String(repeating: "]", count: 600) + #","result":{"messages":[]}}"#,
            "not valid JSON"
        ),
    ]

    @Test(arguments: unreadable)
    func unreadableLinesSayWhy(line: String, detail: String) {
        #expect(failure(line) == "\(Self.cannotRead) (\(detail))")
    }

    @Test func anotherAPIVersionIsNamed() {
        let line = Self.sendLine(Self.message(seq: #""7""#), apiVersion: "2")
        #expect(
            failure(line)
                == "\(Self.cannotRead) (wrong type at 'result.messages.[0].seq'); lanchatd speaks "
                + "control API 2, this lanchat speaks 1: install matching versions")
    }

    /// A result this lanchat could read, from a daemon of another API version, is refused in
    /// words rather than trusted; `status`, which exists to tell, still answers.
    @Test func aReadableResultOfAnotherAPIVersionIsRefused() throws {
        #expect(
            failure(Self.sendLine(Self.message(), apiVersion: "2"))
                == "lanchatd speaks control API 2, this lanchat speaks 1: install matching versions"
        )
        #expect(failure(Self.sendLine(Self.message(), apiVersion: "1")) == nil)
        var status = CLIFixtures.status
        status.apiVersion = 2
        var response = RPCResponse(id: .number(1), result: status)
        response.apiVersion = 2
        let line = try String(decoding: ControlJSON.encoder().encode(response), as: UTF8.self)
        #expect(
            try ResponseDecoding.result(StatusResult.self, from: Array(line.utf8)).apiVersion == 2)
    }

    /// JSONDecoder accepts these, so the answer must not change: the fast path declines them.
    static let lenient: [String] = [
        sendLine(message(seq: "7.0")),
        sendLine(message(seq: "0.7e1")),
        sendLine(message(), message()).replacing("]}}", with: ",]}}"),
        #"{"apiVersion":1,"result":{"messages":[\#(message())]},"result":{"messages":[]}}"#,
        #"{"apiVersion":1,"jsonrpc":"\#u{01}","result":{"messages":[\#(message())]}}"#,
        #"{"apiVersion":1,"id":"\q","result":{"messages":[\#(message())]}}"#,
        "\u{FEFF}" + sendLine(message()),
    ]

    @Test(arguments: lenient)
    func lenientLinesStillDecode(line: String) throws {
        let result = try decode(line)
        #expect(result.messages?.first == Self.expected)
    }

    static let peer =
        #"{"addresses":["10.0.0.2:41000"],"alias":null,"contact":true,"id":"\#(peerID)","#
        + #""keyTag":"BBBB-BBBB","lastSeen":null,"name":"bob","presence":"online","#
        + #""status":"away","statusText":"","trust":"verified"}"#

    func history(_ peer: String) throws(ControlError) -> HistoryResult {
        let line =
            #"{"apiVersion":1,"id":4,"jsonrpc":"2.0","result":{"hasOlder":true,"#
            + #""messages":[\#(Self.message())],"peer":\#(peer)}}"#
        return try ResponseDecoding.result(HistoryResult.self, from: Array(line.utf8))
    }

    @Test func historyIsDecoded() throws {
        let peer = PeerInfo(
            id: Self.peerID, keyTag: "BBBB-BBBB", name: "bob", presence: .online, status: .away,
            trust: .verified, contact: true, addresses: ["10.0.0.2:41000"])
        let expected = HistoryResult(peer: peer, messages: [Self.expected], hasOlder: true)
        #expect(try history(Self.peer) == expected)
    }

    @Test func historyWithABadPeerSaysWhere() {
        #expect(
            throws: ControlError.internalError(
                "\(Self.cannotRead) (missing 'result.peer.addresses')")
        ) {
            try history(Self.peer.replacing(#""addresses":["10.0.0.2:41000"],"#, with: ""))
        }
        #expect(
            throws: ControlError.internalError(
                "\(Self.cannotRead) (wrong type at 'result.peer.contact')")
        ) {
            try history(Self.peer.replacing(#""contact":true"#, with: #""contact":"yes""#))
        }
        #expect(
            throws: ControlError.internalError(
                "\(Self.cannotRead) (bad value at 'result.peer.trust')")
        ) {
            try history(Self.peer.replacing(#""verified""#, with: #""trusted""#))
        }
    }

    // MARK: The fast path

    @Test func theFastPathReadsTheWholeEnvelope() throws {
        let line = Array(Self.sendLine(Self.message()).utf8)
        #expect(
            ResponseDecoding.fastResult(SendResult.self, from: line)?.messages == [Self.expected])
        let padded = Array(" \n{ \"error\" : null , \"result\" : {\"messages\":[]} }\r\n".utf8)
        #expect(ResponseDecoding.fastResult(SendResult.self, from: padded)?.messages == [])
    }

    /// Left to JSONDecoder: a daemon error, no result, an `apiVersion` that is not an integer.
    @Test func theFastPathDeclinesAllButAResult() {
        let lines = [
            #"{"apiVersion":1,"error":{"code":-32005,"message":"no"}}"#,
            #"{"apiVersion":1,"error":{"code":-32005,"message":"no"},"result":{"messages":[]}}"#,
            #"{"apiVersion":1,"result":null}"#, #"{"apiVersion":1}"#,
            #"{"apiVersion":"1","result":{"messages":[]}}"#,
            #"{"apiVersion":1.0,"result":{"messages":[]}}"#,
            #"{"apiVersion":1,"apiVersion":1,"result":{"messages":[]}}"#,
            #"{"apiVersion":1,"result":{"messages":[]},"result":{"messages":[]}}"#,
            #"{"apiVersion":1,"result":{"messages":[]},"id":01}"#,
        ]
        for line in lines {
            #expect(ResponseDecoding.fastResult(SendResult.self, from: Array(line.utf8)) == nil)
        }
    }

    /// The lenient twin of the envelope `ResponseDecoding` reads with JSONDecoder.
    struct SlowEnvelope: Decodable {
        var apiVersion: Int?
        var result: SendResult?
        var error: RPCErrorObject?
    }

    /// Random damage to a real answer: whenever the fast path still reads a result,
    /// JSONDecoder reads the same one and no error.
    @Test func damagedLinesNeverDecodeDifferently() throws {
        let message = MessageInfo(
            id: "0b7f3c9e-3f1a-4c1e-9d55-0d6b1c1f2a10", peer: Self.peerID, direction: .incoming,
            seq: 12, text: "\"quoted\" \\ 😀 \u{2028} \u{1}",
            createdAt: Timestamp(millisecondsSince1970: 0),
            receivedAt: Timestamp(millisecondsSince1970: -1), read: true)
        let line = Array(
            try ControlJSON.encoder().encode(
                RPCResponse(id: .number(9), result: SendResult(messages: [message]))))
        let interesting = Array(#"{}[]:,"\/ -.019eEutrfalsn"#.utf8) + [0x00, 0x7F, 0xFF]
        var state: UInt64 = 5
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = line
            for _ in 0...random(2) {
                let at = random(bytes.count)
                switch random(3) {
                case 0: bytes[at] = interesting[random(interesting.count)]
                case 1: bytes.insert(interesting[random(interesting.count)], at: at)
                default: bytes.remove(at: at)
                }
            }
            guard let fast = ResponseDecoding.fastResult(SendResult.self, from: bytes) else {
                continue
            }
            accepted += 1
            let slow = try? ControlJSON.decoder().decode(SlowEnvelope.self, from: Data(bytes))
            #expect(slow?.error == nil && slow?.result == fast, "\(bytes)")
        }
        #expect(accepted > 300)
    }
}
