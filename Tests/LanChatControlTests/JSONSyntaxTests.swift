import FoundationEssentials
import Testing

@testable import LanChatControl

/// The daemon's strict check of a request line (`JSONSyntax`): RFC 8259 to the letter where
/// `JSONDecoder` is lenient, strings looked into wherever they are, two keys of one name
/// refused, and the top-level id found when it comes before the fault.
@Suite struct JSONSyntaxTests {
    static func fault(_ text: String) -> JSONSyntax.Fault? {
        JSONSyntax.check(Array(text.utf8)).fault
    }

    @Test(arguments: [
        #"{"a":"plain","b":["x",{"c":"y"}]}"#,
        #"{"a":"\"\\\/\b\f\n\r\t","b":"\u00e9\uD800\u0000"}"#,
        "{\"a\":\"tab\\tok\"}\n",
        "{\t\"a\" :\r\n1}",
        #"{"a":"é ✓ 😀"}"#,
        #"{"n":[0,-0,1.5,-2e10,3E+2,4e-2,0.0,123456789012345678901234567890]}"#,
        #"{"e":{},"f":[],"g":[[],{}],"t":[true,false,null]}"#,
        "\u{FEFF}{\"bom\":1}",
        #"[1,2]"#,
        #""a string alone""#,
        #"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#,
    ])
    func wellFormedJSONPasses(text: String) {
        #expect(Self.fault(text) == nil, "\(text.debugDescription)")
    }

    @Test(arguments: [
        // Strings: a raw control character, an escape JSON does not have, no end.
        "{\"a\":\"x\ty\"}", "{\"a\":\"\u{0}\"}", "{\"a\":\"\n\"}", "{\"a\":\"\u{1F}\"}",
        #"{"a":"\q"}"#, #"{"a":"\x41"}"#, #"{"a":"\u12"}"#, #"{"a":"\u12g4"}"#, #"{"a":"\"#,
        "{\"skipped\":{\"deep\":[\"\u{7}\"]}}", #"{"a":"open}"#,
        // What `JSONDecoder` takes (found by QA).
        #"{"a":1,}"#, #"{"a":[1,2,]}"#, #"[,]"#, #"{,}"#, #"{"a":1,,"b":2}"#,
        #"{"id":010}"#, #"{"id":1.}"#, #"{"id":-}"#, #"{"id":.5}"#, #"{"id":+1}"#,
        #"{"id":1e}"#, #"{"id":01.5}"#, #"{"id":NaN}"#, #"{"id":Infinity}"#,
        // Structure.
        "", "   ", #"{"a" 1}"#, #"{a:1}"#, #"{"a":1"#, #"{"a":1} x"#, #"{"a":tru}"#,
        #"{"a":nul}"#, #"{"a":1 "b":2}"#, #"{"a":[1 2]}"#, #"{"a":]"#, #"}"#, "{'a':1}",
    ])
    func malformedJSONIsFound(text: String) {
        guard case .malformed? = Self.fault(text) else {
            Issue.record("\(text.debugDescription): \(String(describing: Self.fault(text)))")
            return
        }
    }

    @Test func twoKeysOfOneNameInOneObjectAreRefused() {
        #expect(Self.fault(#"{"id":1,"id":2}"#) == .duplicateKey("id"))
        #expect(Self.fault(#"{"p":{"peer":"a","peer":"b"}}"#) == .duplicateKey("peer"))
        // Spelled with an escape, it is the same key.
        #expect(Self.fault(#"{"id":1,"\u0069d":2}"#) == .duplicateKey("id"))
        #expect(Self.fault(#"[{"a":1},{"a":2}]"#) == nil)
        // Many keys, each once: no quadratic copy of the set (this would take minutes).
        let keys = (0..<50_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(Self.fault("{" + keys + "}") == nil)
    }

    @Test func nestingPastTheLimitIsSaidByName() {
        let limit = JSONSyntax.maximumDepth
        let within = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(Self.fault(within) == nil)
        // Far deeper than any stack would take in a recursive reader.
        let deep = String(repeating: "[", count: 200_000)
        #expect(Self.fault(deep)?.message.contains("deeper than \(limit) levels") == true)
    }

    @Test func theTopLevelIDIsFoundWhenItComesBeforeTheFault() {
        func id(_ text: String) -> String? {
            let bytes = Array(text.utf8)
            return JSONSyntax.check(bytes).idValue.map {
                String(decoding: bytes[$0], as: UTF8.self)
            }
        }
        #expect(id(#"{"jsonrpc":"2.0","id":12,"method":"x",}"#) == "12")
        #expect(id(#"{"id" : "a b" ,"x":[1,]}"#) == #""a b""#)
        #expect(id(#"{"id":{"n":[1]},"x":tru}"#) == #"{"n":[1]}"#)
        #expect(id(#"{"x":tru,"id":1}"#) == nil)
        #expect(id(#"{"p":{"id":5},"x":,}"#) == nil, "a nested id is not the request's")
    }
}
