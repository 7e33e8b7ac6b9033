import FoundationEssentials
import Testing

@testable import LanChatControl

/// The daemon's check of the strings `JSONDecoder` does not look into: a raw control
/// character or an escape JSON does not have is found wherever it is; well-formed strings,
/// and bytes outside strings, are left alone.
@Suite struct JSONStringSyntaxTests {
    static func fault(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBytes(JSONStringSyntax.fault(in:))
    }

    @Test(arguments: [
        #"{"a":"plain","b":["x",{"c":"y"}]}"#,
        #"{"a":"\"\\\/\b\f\n\r\t","b":"\u00e9\uD800\u0000"}"#,
        "{\"a\":\"tab\\tok\"}\n",
        "{\t\"a\" :\r\n1}",
        #"{"a":"é ✓ 😀"}"#,
    ])
    func wellFormedStringsPass(text: String) {
        #expect(Self.fault(text) == nil, "\(text.debugDescription)")
    }

    @Test(arguments: [
        "{\"a\":\"x\ty\"}", "{\"a\":\"\u{0}\"}", "{\"a\":\"\n\"}", "{\"a\":\"\u{1F}\"}",
        #"{"a":"\q"}"#, #"{"a":"\x41"}"#, #"{"a":"\u12"}"#, #"{"a":"\u12g4"}"#, #"{"a":"\"#,
        "{\"skipped\":{\"deep\":[\"\u{7}\"]}}",
    ])
    func malformedStringsAreFound(text: String) {
        #expect(Self.fault(text) != nil, "\(text.debugDescription)")
    }
}
