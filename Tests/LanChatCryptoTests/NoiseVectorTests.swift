import LanChatCore
import LanChatCrypto
import Testing

/// The public `Noise_XX_25519_ChaChaPoly_SHA256` vector (noise-c `cacophony.txt`): all three
/// handshake messages and the transport messages, embedded as constants.
@Suite struct NoiseVectorTests {
    static let prologue = Hex.decode("4a6f686e2047616c74")
    static let initiatorStatic = Hex.decode(
        "e61ef9919cde45dd5f82166404bd08e38bceb5dfdfded0a34c8df7ed542214d1")
    static let initiatorEphemeral = Hex.decode(
        "893e28b9dc6ca8d611ab664754b8ceb7bac5117349a4439a6b0569da977c464a")
    static let responderStatic = Hex.decode(
        "4a3acbfdb163dec651dfa3194dece676d437029c62a408b4c5ea9114246e4893")
    static let responderEphemeral = Hex.decode(
        "bbdb4cdbd309f1a1f2e1456967fe288cadd6f712d65dc7b7793d5e63da6b375b")
    static let messages: [(payload: String, ciphertext: String)] = [
        (
            "4c756477696720766f6e204d69736573",
            "ca35def5ae56cec33dc2036731ab14896bc4c75dbb07a61f879f8e3afa4c79444c756477696720766f6e204d69736573"
        ),
        (
            "4d757272617920526f746862617264",
            "95ebc60d2b1fa672c1f46a8aa265ef51bfe38e7ccb39ec5be34069f14480884381cbad1f276e038c48378ffce2b65285e08d6b68aaa3629a5a8639392490e5b9bd5269c2f1e4f488ed8831161f19b7815528f8982ffe09be9b5c412f8a0db50f8814c7194e83f23dbd8d162c9326ad"
        ),
        (
            "462e20412e20486179656b",
            "c7195ffacac1307ff99046f219750fc47693e23c3cb08b89c2af808b444850a80ae475b9df0f169ae80a89be0865b57f58c9fea0d4ec82a286427402f113e4b6ae769a1d95941d49b25030"
        ),
        ("4361726c204d656e676572", "96763ed773f8e47bb3712f0e29b3060ffc956ffc146cee53d5e1df"),
        (
            "4a65616e2d426170746973746520536179",
            "3e40f15f6f3a46ae446b253bf8b1d9ffb6ed9b174d272328ff91a7e2e5c79c07f5"
        ),
        (
            "457567656e2042f6686d20766f6e2042617765726b",
            "eb3f3515110702e047a6c9da4478b6ead94873c11c0f2d710ddb3f09fce024b3a58502ae3f"
        ),
    ]

    @Test func cacophonyVectorPasses() throws {
        let initiator = NoiseHandshakeState(
            isInitiator: true,
            identity: try IdentityKeyPair.fromSecretKeyForTesting(Self.initiatorStatic),
            fixedEphemeral: try IdentityKeyPair.fromSecretKeyForTesting(Self.initiatorEphemeral))
        let responder = NoiseHandshakeState(
            isInitiator: false,
            identity: try IdentityKeyPair.fromSecretKeyForTesting(Self.responderStatic),
            fixedEphemeral: try IdentityKeyPair.fromSecretKeyForTesting(Self.responderEphemeral))
        try initiator.initialize(prologue: Self.prologue)
        try responder.initialize(prologue: Self.prologue)
        let payloads = Self.messages.map { Hex.decode($0.payload) }
        let expected = Self.messages.map { Hex.decode($0.ciphertext) }

        let message1 = try initiator.writeMessage1(payload: payloads[0])
        #expect(message1 == expected[0])
        #expect(try responder.readMessage1(message1[...]) == payloads[0])
        let message2 = try responder.writeMessage2(payload: payloads[1])
        #expect(message2 == expected[1])
        #expect(try initiator.readMessage2(message2[...]).payload == payloads[1])
        let message3 = try initiator.writeMessage3(payload: payloads[2])
        #expect(message3 == expected[2])
        #expect(try responder.readMessage3(message3[...]).payload == payloads[2])
        #expect(initiator.handshakeHash == responder.handshakeHash)

        let keys = try initiator.splitKeysForTesting()
        // Messages alternate after the handshake: responder → initiator uses k2.
        let transport3 = try NoiseHandshakeState.encryptForTesting(
            key: keys.responderToInitiator, nonce: 0, plaintext: payloads[3])
        let transport4 = try NoiseHandshakeState.encryptForTesting(
            key: keys.initiatorToResponder, nonce: 0, plaintext: payloads[4])
        let transport5 = try NoiseHandshakeState.encryptForTesting(
            key: keys.responderToInitiator, nonce: 1, plaintext: payloads[5])
        #expect(transport3 == expected[3])
        #expect(transport4 == expected[4])
        #expect(transport5 == expected[5])
    }
}
