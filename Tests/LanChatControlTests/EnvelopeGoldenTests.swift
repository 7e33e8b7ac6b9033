import LanChatControl
import Testing

/// The JSON-RPC 2.0 envelope: requests, responses with `apiVersion`, ids.
@Suite struct EnvelopeGoldenTests {
    @Test func requestLine() throws {
        let request = RPCRequest(id: .number(7), method: "who", params: WhoParams(all: true))
        #expect(
            try GoldenJSON.encode(request)
                == #"{"id":7,"jsonrpc":"2.0","method":"who","params":{"all":true}}"#)
    }

    @Test func requestWithStringIDAndNoParams() throws {
        let request = RPCRequest(id: .string("a-1"), method: "status", params: NoParams())
        #expect(
            try GoldenJSON.encode(request)
                == #"{"id":"a-1","jsonrpc":"2.0","method":"status","params":{}}"#)
    }

    @Test func requestHeadIsReadWithoutParams() throws {
        let head = try GoldenJSON.decode(
            RPCRequestHead.self, #"{"jsonrpc":"2.0","id":3,"method":"send","params":{"peer":1}}"#)
        #expect(head.jsonrpc == "2.0" && head.id == .number(3) && head.method == "send")
        let bare = try GoldenJSON.decode(RPCRequestHead.self, "{}")
        #expect(bare.id == nil && bare.method == nil && bare.jsonrpc == nil)
    }

    @Test func paramsMayBeAbsentOrNull() throws {
        let absent = try GoldenJSON.decode(RPCRequestParams<WhoParams>.self, #"{"id":1}"#)
        #expect(absent.params == nil)
        let null = try GoldenJSON.decode(RPCRequestParams<NoParams>.self, #"{"params":null}"#)
        #expect(null.params == nil)
        let given = try GoldenJSON.decode(
            RPCRequestParams<RetryParams>.self, #"{"params":{"target":"bob"}}"#)
        #expect(given.params == RetryParams(target: "bob"))
    }

    /// A method without params takes `{}` (members ignored, as unknown fields are) or none;
    /// a string, a number or an array is the wrong type, as for any method.
    @Test func noParamsAreAnObjectOrNothing() throws {
        let empty = try GoldenJSON.decode(RPCRequestParams<NoParams>.self, #"{"params":{"a":1}}"#)
        #expect(empty.params == NoParams())
        for wrong in [#""x""#, "[]", "5"] {
            #expect(throws: (any Error).self, "\(wrong)") {
                try GoldenJSON.decode(RPCRequestParams<NoParams>.self, #"{"params":"# + wrong + "}")
            }
        }
    }

    @Test func successResponse() throws {
        let response = RPCResponse(id: .number(1), result: WhoResult(peers: []))
        let golden =
            #"{"apiVersion":1,"id":1,"jsonrpc":"2.0","result":{"identityAlerts":[],"keyChanges":[],"peers":[]}}"#
        #expect(try GoldenJSON.encode(response) == golden)
        let decoded = try GoldenJSON.decode(RPCResponse<WhoResult>.self, golden)
        #expect(decoded.id == .number(1) && decoded.apiVersion == 1)
        #expect(decoded.result == WhoResult(peers: []) && decoded.error == nil)
    }

    @Test func errorResponseWithNullID() throws {
        let response = RPCResponse<WhoResult>(id: nil, error: .parseError("not JSON"))
        let golden =
            #"{"apiVersion":1,"error":{"code":-32700,"message":"not JSON"},"id":null,"jsonrpc":"2.0"}"#
        #expect(try GoldenJSON.encode(response) == golden)
        let decoded = try GoldenJSON.decode(RPCResponse<WhoResult>.self, golden)
        #expect(decoded.id == nil && decoded.result == nil)
        #expect(decoded.error?.controlError == .parseError("not JSON"))
    }

    @Test func rpcIDs() throws {
        #expect(try GoldenJSON.encode([RPCID.number(-5), .string("x")]) == #"[-5,"x"]"#)
        #expect(
            try GoldenJSON.decode([RPCID].self, #"[9007199254740993,"7"]"#) == [
                .number(9_007_199_254_740_993), .string("7"),
            ])
    }

    /// JSON-RPC 2.0 allows any number as an id: one that is not a whole number in Int64
    /// comes back as the same number, not as null (1.50 and 1.5 are one JSON number).
    @Test(arguments: [
        ("1.5", "1.5"), ("-0.25", "-0.25"), ("1.50", "1.5"), ("1e-7", "0.0000001"),
        ("18446744073709551616", "18446744073709551616"),
        ("-9223372036854775809", "-9223372036854775809"),
        ("12345678901234567890123456789.012345678", "12345678901234567890123456789.012345678"),
    ])
    func numberIDsThatAreNotInt64ComeBackAsTheSameNumber(sent: String, echoed: String) throws {
        let id = try #require(try GoldenJSON.decode([RPCID].self, "[\(sent)]").first)
        guard case .decimal = id else {
            Issue.record("\(sent) read as \(id)")
            return
        }
        #expect(try GoldenJSON.encode([id]) == "[\(echoed)]")
        #expect(try GoldenJSON.decode([RPCID].self, "[\(echoed)]") == [id])
    }

    /// Out of `Decimal`'s range an id cannot be given back exactly: it does not decode, as a
    /// type mismatch on the id (the daemon answers it with invalidRequest, not parseError).
    @Test(arguments: ["1e200", "-1e200", "1e-200", "1e400", "true", "{}", "[1]"])
    func idsThatCannotBeGivenBackDoNotDecode(sent: String) {
        #expect {
            try GoldenJSON.decode([RPCID].self, "[\(sent)]")
        } throws: { error in
            guard case DecodingError.typeMismatch(let type, _) = error else { return false }
            return type == RPCID.self
        }
    }

    @Test func apiVersionAndLimits() {
        #expect(ControlAPI.version == 1)
        #expect(ControlAPI.maxRequestBytes == 1_048_576)
    }
}
