import LanChatCore
import LanChatCrypto
import Testing

/// PROTOCOL.md §7.4 item 47.
@Suite struct FingerprintTests {
    @Test func item47SafetyNumberVectorSymmetryBitSensitivityAndFormat() throws {
        let a = try #require(PeerKey(bytes: LCHTVector.initiatorPublic))
        let b = try #require(PeerKey(bytes: LCHTVector.responderPublic))
        #expect(Fingerprint.safetyNumber(a, b) == LCHTVector.safetyNumber)
        #expect(Fingerprint.safetyNumber(b, a) == LCHTVector.safetyNumber)
        for byte in [0, 17, 30] {
            var flipped = a.bytes
            flipped[byte] ^= 0x01
            let other = try #require(PeerKey(bytes: flipped))
            #expect(Fingerprint.safetyNumber(other, b) != LCHTVector.safetyNumber)
            #expect(Fingerprint.safetyNumber(a, other) != LCHTVector.safetyNumber)
        }
        for _ in 0..<5 {
            let number = Fingerprint.safetyNumber(
                try IdentityKeyPair.generate().publicKey, try IdentityKeyPair.generate().publicKey)
            let groups = number.split(separator: " ")
            #expect(groups.count == 12 && groups.allSatisfy { $0.count == 5 })
            #expect(number.filter(\.isNumber).count == 60)
        }
    }

    @Test func keyTagIsEightBase32CharactersOfTheFingerprint() throws {
        let key = try IdentityKeyPair.generate().publicKey
        let tag = Fingerprint.keyTag(key)
        #expect(tag.count == 9 && Array(tag)[4] == "-")
        let expected = String(Base32.encode(Fingerprint.fingerprint32(key)).prefix(8))
        #expect(tag.filter { $0 != "-" } == expected)
    }
}
