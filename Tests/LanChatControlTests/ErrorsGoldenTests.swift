import LanChatControl
import Testing

/// `ControlError`: its two mappings (JSON-RPC code, exit code) and its wire form.
@Suite struct ErrorsGoldenTests {
    static let candidates = [
        PeerCandidate(id: Fixtures.bobID, keyTag: "BOBB-2345", name: "bob@laptop", alias: "Bob"),
        PeerCandidate(id: Fixtures.aliceID, keyTag: "ALIC-EAAA", name: "bobby", alias: nil),
    ]

    /// Every kind once: (error, JSON-RPC code, exit code).
    static let table: [(ControlError, Int, Int32)] = [
        (.parseError("p"), -32700, 64),
        (.invalidRequest("r"), -32600, 64),
        (.methodNotFound("frob"), -32601, 64),
        (.invalidParams("x"), -32602, 64),
        (.internalError("i"), -32603, 70),
        (.badInput("b"), -32001, 65),
        (.peerNotFound("zed"), -32002, 67),
        (.peerAmbiguous("bo", candidates: candidates), -32003, 67),
        (.timedOut("t", messageIDs: ["m1"]), -32004, 75),
        (.failed("f"), -32005, 1),
        (.storeUnavailable("s"), -32006, 74),
        (.permissionDenied("d"), -32007, 77),
        (.daemonNotRunning("n"), -32008, 69),
        (.unavailable("u"), -32009, 69),
    ]

    @Test func eachKindHasItsCodes() {
        for (error, rpcCode, exitCode) in Self.table {
            #expect(error.rpcCode == rpcCode, "\(error)")
            #expect(error.exitCode == exitCode, "\(error)")
        }
    }

    @Test func everyKindSurvivesTheWire() throws {
        for (error, _, _) in Self.table {
            let text = try GoldenJSON.encode(RPCErrorObject(error))
            let back = try GoldenJSON.decode(RPCErrorObject.self, text).controlError
            #expect(back == error)
        }
    }

    @Test func ambiguousPeerWireForm() throws {
        let error = ControlError.peerAmbiguous("bo", candidates: Self.candidates)
        let golden =
            #"{"code":-32003,"data":{"candidates":[{"alias":"Bob","id":"\#(Fixtures.bobID)","#
            + #""keyTag":"BOBB-2345","name":"bob@laptop"},{"alias":null,"id":"\#(Fixtures.aliceID)","#
            + #""keyTag":"ALIC-EAAA","name":"bobby"}]},"message":"'bo' matches 2 peers"}"#
        try GoldenJSON.expectRoundTrip(RPCErrorObject(error), golden)
        #expect(error.isPeerLookupFailure)
    }

    @Test func timeoutWireFormCarriesTheMessageIDs() throws {
        let error = ControlError.timedOut("not delivered within 30 s", messageIDs: ["m1", "m2"])
        try GoldenJSON.expectRoundTrip(
            RPCErrorObject(error),
            #"{"code":-32004,"data":{"messageIDs":["m1","m2"]},"message":"not delivered within 30 s"}"#
        )
        #expect(error.isTimeout)
    }

    @Test func errorWithoutDataOmitsIt() throws {
        try GoldenJSON.expectRoundTrip(
            RPCErrorObject(.methodNotFound("frob")),
            #"{"code":-32601,"message":"unknown method 'frob'"}"#)
    }

    @Test func unknownCodeBecomesAnInternalError() throws {
        let error = try GoldenJSON.decode(RPCErrorObject.self, #"{"code":-31999,"message":"new"}"#)
            .controlError
        #expect(error.exitCode == 70)
        #expect(error.rpcCode == -32603)
        #expect(error.message == "new")
    }
}
