import FoundationEssentials
import LanChatControl
import Testing

/// The daemon reads request heads and `send` params through `JSONReader` first: it must read
/// exactly what `JSONDecoder` reads, or answer nil and leave the line to it.
@Suite struct RequestFastDecodingTests {
    typealias Samples = FastDecodingSamples

    struct Head: Equatable {
        var jsonrpc: String?
        var id: RPCID?
        var method: String?

        init(_ head: RPCRequestHead) {
            jsonrpc = head.jsonrpc
            id = head.id
            method = head.method
        }
    }

    static func fastHead(_ bytes: [UInt8]) -> Head? { RPCRequestHead(json: bytes).map(Head.init) }
    static func slowHead(_ bytes: [UInt8]) -> Head? {
        Samples.slow(RPCRequestHead.self, bytes).map(Head.init)
    }
    static func fastParams(_ bytes: [UInt8]) -> SendParams? {
        RPCRequestParams<SendParams>(json: bytes)?.params
    }
    static func slowParams(_ bytes: [UInt8]) -> SendParams? {
        Samples.slow(RPCRequestParams<SendParams>.self, bytes)?.params
    }

    static func sendRequest(_ generator: inout SampleGenerator) throws -> [UInt8] {
        let ids: [RPCID] = [.number(1), .number(0), .number(.max), .number(.min), .string("")]
        let id = generator.chance(50) ? generator.pick(ids) : .string(generator.text())
        let many = generator.chance(50)
        let params = SendParams(
            peer: generator.text(), text: many ? nil : generator.text(),
            texts: many ? (0..<generator.below(20)).map { _ in generator.text() } : nil,
            wait: generator.chance(30) ? generator.chance(50) : nil,
            waitRead: generator.chance(30) ? generator.chance(50) : nil,
            timeout: generator.chance(30) ? generator.timeout() : nil,
            idsOnly: generator.chance(30) ? generator.chance(50) : nil)
        return try Samples.encode(RPCRequest(id: id, method: "send", params: params))
    }

    /// `timeout` is the one floating-point field: every JSON number form reads as
    /// `JSONDecoder` reads it, or is left to it.
    @Test(arguments: [
        "0", "-0", "10", "0.5", "1e2", "1E2", "2.5e-1", "2.5E+1", "30.000", "86400",
        "0.1", "0.30000000000000004", "1.7976931348623157e308", "4.9e-324", "1e-400",
        "123456789012345678901234567890", "-1.5", "1e400", "-1e400",
        // Not JSON numbers (JSONDecoder refuses them; the reader must not accept them).
        "01", "1.", ".5", "+1", "1e", "1e+", "-", "0x10", "1_000", "Infinity", "NaN",
    ])
    func timeoutsReadAsJSONDecoderReadsThem(number: String) {
        let text =
            #"{"jsonrpc":"2.0","id":1,"method":"send","params":{"peer":"b","text":"x","wait":true,"timeout":"#
            + number + "}}"
        let bytes = Array(text.utf8)
        let slow = Self.slowParams(bytes)
        if let fast = Self.fastParams(bytes) {
            #expect(fast == slow, "\(number)")
            #expect(fast.timeout?.bitPattern == slow?.timeout?.bitPattern, "\(number)")
        } else {
            // Declined: only ever a number JSONDecoder refuses too, or reads out of range.
            #expect(slow == nil || slow?.timeout.map { !$0.isFinite } == true, "\(number)")
        }
    }

    @Test func generatedSendRequestsReadAsJSONDecoderReadsThem() throws {
        var generator = SampleGenerator(seed: 11)
        for _ in 0..<500 {
            let bytes = try Self.sendRequest(&generator)
            let head = try #require(Self.fastHead(bytes))
            #expect(head == Self.slowHead(bytes))
            #expect(head.method == "send" && head.jsonrpc == "2.0")
            let params = try #require(Self.fastParams(bytes))
            #expect(params == Self.slowParams(bytes))
        }
    }

    @Test(arguments: [
        // A timeout past the largest Double: JSONDecoder refuses it, the reader leaves it.
        #"{"jsonrpc":"2.0","id":1,"method":"send","params":{"peer":"bob","text":"x","wait":true,"timeout":1e400}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"send","params":{"peer":"bob","text":"x","timeout":"10"}}"#,
        // No params, null params: the dispatcher's slow path decides what that means.
        #"{"jsonrpc":"2.0","id":1,"method":"send"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"send","params":null}"#,
        // Wrong types, a duplicate key.
        #"{"jsonrpc":"2.0","id":1,"method":"send","params":{"peer":7,"text":"x"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"send","params":{"peer":"a","peer":"b","text":"x"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"send","params":{"peer":"a","texts":["x",1]}}"#,
    ])
    func requestsTheReaderDeclinesAreLeftToJSONDecoder(text: String) {
        #expect(Self.fastParams(Array(text.utf8)) == nil)
    }

    @Test func headsWithoutParamsOrWithOddIDsReadAsJSONDecoderReadsThem() {
        let heads = [
            #"{"jsonrpc":"2.0","method":"status"}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"who","params":{}}"#,
            #"{"id":"a\"b","method":null,"jsonrpc":"1.0"}"#,
            #" { "method" : "history" , "id" : -9223372036854775808 } "#,
            #"{}"#,
        ]
        for text in heads {
            let bytes = Array(text.utf8)
            let fast = Self.fastHead(bytes)
            #expect(fast != nil, "\(text)")
            #expect(fast == Self.slowHead(bytes), "\(text)")
        }
        // Ids JSONDecoder reads differently or refuses are left to it.
        for text in [#"{"id":1.0}"#, #"{"id":9223372036854775808}"#, #"{"id":[1]}"#, "[]", "nul"] {
            #expect(Self.fastHead(Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// Random damage never makes the two paths disagree on a head or on params.
    @Test func damagedRequestsNeverReadDifferently() throws {
        var generator = SampleGenerator(seed: 12)
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = try Self.sendRequest(&generator)
            Samples.damage(&bytes, using: &generator)
            if let head = Self.fastHead(bytes) {
                #expect(head == Self.slowHead(bytes), "\(bytes)")
            }
            if let params = Self.fastParams(bytes) {
                accepted += 1
                #expect(params == Self.slowParams(bytes), "\(bytes)")
            }
        }
        #expect(accepted > 300)
    }
}
