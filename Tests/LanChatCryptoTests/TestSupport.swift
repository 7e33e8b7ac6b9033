import LanChatCore
import LanChatCrypto
import Testing

/// Hex helpers and handshake drivers shared by the crypto tests.
enum Hex {
    static func decode(_ text: String) -> [UInt8] {
        let clean = Array(text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") })
        var out: [UInt8] = []
        var index = 0
        while index + 1 < clean.count {
            out.append(UInt8(nibble(clean[index]) << 4 | nibble(clean[index + 1])))
            index += 2
        }
        return out
    }

    static func encode(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    private static func nibble(_ character: UInt8) -> UInt8 {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: 0
        }
    }
}

/// The LCHT/1 known-answer vector of PROTOCOL.md §3.11 (from `tools/lcht_ref.py`, libsodium
/// 1.0.18), embedded so the tests need nothing outside the repository.
enum LCHTVector {
    static let initiatorStatic = [UInt8](repeating: 0x11, count: 32)
    static let responderStatic = [UInt8](repeating: 0x22, count: 32)
    static let initiatorEphemeral = [UInt8](repeating: 0x33, count: 32)
    static let responderEphemeral = [UInt8](repeating: 0x44, count: 32)
    static let initiatorPublic = Hex.decode(
        "7b4e909bbe7ffe44c465a220037d608ee35897d31ef972f07f74892cb0f73f13")
    static let responderPublic = Hex.decode(
        "0faa684ed28867b97f4a6a2dee5df8ce974e76b7018e3f22a1c4cf2678570f20")
    static let preamble = Hex.decode("4c43485401010000")
    static let message1 = Hex.decode(
        "7b0d47d93427f8311160781c7c733fd89f88970aef490d8aa0ee19a4cb8a1b14")
    static let message2 = Hex.decode(
        """
        ff2ee45601ec1b67310c7790404585ae697331eee1c1f8cf2419731c1fff3e6bfcadb15080d9fd0434a18565\
        751d3b6022bec571f33b6212486a1bffa54d1a1eed6adf99968824485001625f216f2119dfc2d9b4daab52\
        63694f31efe8083ece9d49c64f9f4d98990ec6b633
        """)
    static let message3 = Hex.decode(
        """
        a7ea7dd47dddbcfcd736b91b174c6107b2ad26c161965a119a7b644e0c6b3d066c3a318c593c3dbd7e49\
        6f50662f6d4770bb4e21c75d36bfd31b99144a5aa2dfe20f576c5a0ffa4d76f65cb8
        """)
    static let firstFlight = Hex.decode(
        "4c4348540101000000207b0d47d93427f8311160781c7c733fd89f88970aef490d8aa0ee19a4cb8a1b14")
    static let handshakeHash = Hex.decode(
        "0c7f692ab7d446a6b15e5f36b6651cbf5092f21b91fa4204329b44d2a0df1eb8")
    static let keyInitiatorToResponder = Hex.decode(
        "87545187bdfc0130ee12184489f9d74da5b391ee6e64846190bc39165d273c7d")
    static let keyResponderToInitiator = Hex.decode(
        "31afe41fee9c650f0b5985013999d47a239b9c95235f7b3a1bd3e2328d76884e")
    static let fingerprintInitiator = Hex.decode(
        "d902ca92256667e5f1ebc6e7dc0be642d6d08f0cc118dfa7b2799ec978a9d714")
    static let idInitiator = "PNHJBG56P77EJRDFUIQAG7LAR3RVRF6TD34XF4D7OSESZMHXH4JQ"
    static let keyTagInitiator = "3EBM-VERF"
    static let safetyNumber =
        "70211 28878 91429 23862 92742 56558 90647 36537 89653 28314 69873 92838"
    static let keyFile = Hex.decode(
        """
        4c4348544b45593100000000111111111111111111111111111111111111111111111111111111111111\
        11117b4e909bbe7ffe44c465a220037d608ee35897d31ef972f07f74892cb0f73f138bc06612f0601c2b\
        cba937daf71ea120d59f44fb8c22acb0a82b48046e2419eb
        """)
    /// The payload both sides send in v1: format 1, max_ver 1, reserved 0, capabilities 0.
    static let payload = Hex.decode("010100000000000000000000")
}

/// Known keys for the tests.
enum Keys {
    static func initiator() throws -> IdentityKeyPair {
        try IdentityKeyPair.fromSecretKeyForTesting(LCHTVector.initiatorStatic)
    }
    static func responder() throws -> IdentityKeyPair {
        try IdentityKeyPair.fromSecretKeyForTesting(LCHTVector.responderStatic)
    }
    static func initiatorEphemeral() throws -> IdentityKeyPair {
        try IdentityKeyPair.fromSecretKeyForTesting(LCHTVector.initiatorEphemeral)
    }
    static func responderEphemeral() throws -> IdentityKeyPair {
        try IdentityKeyPair.fromSecretKeyForTesting(LCHTVector.responderEphemeral)
    }
}

/// `#require` for move-only values (the macro needs Copyable): records an issue and throws
/// when the value is missing.
struct MissingValue: Error, CustomStringConvertible {
    let description: String
}

func requireSome<T: ~Copyable>(
    _ value: consuming T?, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
) throws -> T {
    switch consume value {
    case .some(let unwrapped): return unwrapped
    case .none:
        Issue.record("missing \(what)", sourceLocation: sourceLocation)
        throw MissingValue(description: "missing \(what)")
    }
}
