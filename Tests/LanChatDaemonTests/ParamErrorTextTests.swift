import Foundation
import LanChatControl
import Testing

@testable import LanChatDaemon

/// A wrong param's error names JSON's kinds (a string, an object), never a Swift type: the
/// API's users write JSON.
@Suite struct ParamErrorTextTests {
    static func described<T: Decodable>(_ json: String, as type: T.Type) -> String {
        do {
            _ = try JSONDecoder().decode(T.self, from: Data(json.utf8))
            return "decoded"
        } catch {
            return ControlDispatcher.describe(error)
        }
    }

    @Test func wrongTypesAreNamedInJSONsWords() {
        #expect(Self.described(#"{"peer":42}"#, as: PeerParams.self) == "peer should be a string")
        #expect(Self.described(#"[1]"#, as: PeerParams.self) == "params should be an object")
        #expect(
            Self.described(#"{"peer":"bob","text":"x","wait":"yes"}"#, as: SendParams.self)
                == "wait should be true or false")
        #expect(
            Self.described(#"{"peer":"bob","limit":"ten"}"#, as: HistoryParams.self)
                == "limit should be a whole number")
        #expect(
            Self.described(#"{"peer":"bob","texts":"a"}"#, as: SendParams.self)
                == "texts should be an array")
        #expect(
            Self.described(#"{"peer":null}"#, as: PeerParams.self)
                == "peer should be a string, not null")
        // An element by its index, as JSON paths write it (found by QA: "texts.Index 1").
        #expect(
            Self.described(#"{"peer":"bob","texts":["a",5]}"#, as: SendParams.self)
                == "texts[1] should be a string")
    }
}
