import FoundationEssentials
import LanChatControl
import Testing

@testable import LanChatClient

/// The client's reader thread routes every answer by its id. The fast path must give the
/// routing JSONDecoder gives, or nil to leave the line to it.
@Suite struct ResponseRoutingTests {
    typealias Head = ResponseRouting.Head

    static func slowHead(_ text: String) -> Head? {
        try? JSONDecoder().decode(Head.self, from: Data(text.utf8))
    }

    @Test(arguments: [
        #"{"apiVersion":1,"id":3,"jsonrpc":"2.0","result":{"messages":[{"text":"a\"}"}]}}"#,
        #"{"id":-9223372036854775808,"result":null}"#,
        #"{"id":"x\u0041","result":{}}"#,
        #"{"id":null,"error":null,"method":"event","params":{"cursor":"1"}}"#,
        #"{"jsonrpc":"2.0","method":"event"}"#,
        #" {"result":[1,2.5,true,null,"é😀"], "id" : 7 } "#,
        #"{}"#,
    ])
    func linesRouteAsJSONDecoderRoutesThem(text: String) throws {
        let fast = try #require(ResponseRouting.fastHead(Array(text.utf8)))
        #expect(fast == Self.slowHead(text))
    }

    @Test(arguments: [
        // An error object is always left to JSONDecoder, which reads it.
        #"{"id":null,"error":{"code":-32700,"message":"the request is not valid JSON"}}"#,
        #"{"id":4,"error":{"code":1,"message":"no"}}"#,
        // Ids JSONDecoder reads leniently or refuses; broken JSON.
        #"{"id":3.0}"#, #"{"id":[3]}"#, #"{"id":3,"id":4}"#, #"{"id":3"#, "null", "",
    ])
    func linesTheReaderDeclinesAreLeftToJSONDecoder(text: String) {
        #expect(ResponseRouting.fastHead(Array(text.utf8)) == nil)
    }

    @Test func classificationIsUnchanged() {
        func route(_ text: String) -> ResponseRouting.Route {
            ResponseRouting.classify(Array(text.utf8))
        }
        #expect(route(#"{"id":3,"result":{}}"#) == .response(id: 3))
        #expect(route(#"{"id":"3","result":{}}"#) == .unknownID)
        #expect(route(#"{"method":"event","params":{}}"#) == .notification)
        #expect(route(#"{"result":{}}"#) == .malformed("a response without an id"))
        #expect(route("{") == .malformed("not a JSON-RPC response object"))
        #expect(
            route(#"{"id":null,"error":{"code":-32600,"message":"bad"}}"#)
                == .errorWithoutID(ControlError(rpcCode: -32600, message: "bad", data: nil)))
    }

    /// A call the daemon never answered says what may still happen to it, by method: a
    /// backup cut short is never resumed (found by QA: "may still be done").
    @Test func anUnansweredCallSaysWhatMayStillHappen() {
        #expect(ControlClient.mayStillBeDone("backup").contains("No backup was made"))
        #expect(ControlClient.mayStillBeDone("send").contains("lanchat history PEER"))
        #expect(ControlClient.mayStillBeDone("who").isEmpty)
        #expect(ControlClient.mayStillBeDone("alias").contains("may still be done"))
    }
}
