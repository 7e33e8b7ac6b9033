import LanChatControl
import Testing

/// The identifier shapes that the daemon refuses as names and completion never offers.
@Suite("Identifier shapes")
struct IdentifierShapeTests {
    @Test func keyTags() {
        #expect(IdentifierShape.isKeyTag("ABCD-2345"))
        #expect(IdentifierShape.isKeyTag("abcd-2345"))
        #expect(!IdentifierShape.isKeyTag("ABCD-2341"))  // 1 is not base32
        #expect(!IdentifierShape.isKeyTag("ABCD2345"))
        #expect(!IdentifierShape.isKeyTag("ABCD-23456"))
    }

    @Test func peerIDs() {
        let id = String(repeating: "AB2Z", count: 13)
        #expect(IdentifierShape.isPeerID(id))
        #expect(IdentifierShape.isPeerID(id.lowercased()))
        #expect(!IdentifierShape.isPeerID(String(id.dropLast())))
        #expect(!IdentifierShape.isPeerID(String(id.dropLast()) + "0"))  // 0 is not base32
    }

    @Test func groupIDs() {
        let id = String(repeating: "0f9A", count: 8)
        #expect(IdentifierShape.isGroupID(id))
        #expect(!IdentifierShape.isGroupID(String(id.dropLast()) + "g"))
        #expect(!IdentifierShape.isGroupID(id + "0"))
    }

    @Test func namesAreNotIdentifiers() {
        for name in ["ops", "bob", "deploy team", "ABCD-234", "東京チーム"] {
            #expect(!IdentifierShape.isIdentifier(name), "\(name)")
        }
    }
}
