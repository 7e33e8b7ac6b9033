import LanChatCore
import LanChatCrypto
import LanChatFuzzSupport

/// The identities of the LCHT/1 known-answer vector (PROTOCOL.md §3.11: static keys 0x11…,
/// 0x22…, ephemerals 0x33…, 0x44…), embedded like the crypto tests embed them. With them the
/// handshake is deterministic: a responder answers the vector's first flight with the vector's
/// msg2, so a recorded initiator transcript stays valid as a seed forever.
///
/// Made once per process (a global `let`), read-only afterwards; the key pairs are Sendable.
package struct VectorKeys: Sendable {
    package let initiator: IdentityKeyPair
    package let responder: IdentityKeyPair
    package let initiatorEphemeral: IdentityKeyPair
    package let responderEphemeral: IdentityKeyPair

    package static let shared = VectorKeys()

    init() {
        do {
            initiator = try Self.pair(0x11)
            responder = try Self.pair(0x22)
            initiatorEphemeral = try Self.pair(0x33)
            responderEphemeral = try Self.pair(0x44)
        } catch {
            FuzzFailure.report("cannot make the vector key pairs: \(error)")
        }
    }

    private static func pair(_ byte: UInt8) throws -> IdentityKeyPair {
        try IdentityKeyPair.fromSecretKeyForTesting([UInt8](repeating: byte, count: 32))
    }

    /// The vector's first flight (preamble ‖ u16(32) ‖ msg1) and msg3 (PROTOCOL.md §3.11).
    package static let firstFlight =
        fuzzUnhex(
            "4c4348540101000000207b0d47d93427f8311160781c7c733fd89f88970aef490d8aa0ee19a4cb8a1b14")
        ?? []
    package static let message2 =
        fuzzUnhex(
            """
            ff2ee45601ec1b67310c7790404585ae697331eee1c1f8cf2419731c1fff3e6bfcadb15080d9fd0434a18565\
            751d3b6022bec571f33b6212486a1bffa54d1a1eed6adf99968824485001625f216f2119dfc2d9b4daab52\
            63694f31efe8083ece9d49c64f9f4d98990ec6b633
            """) ?? []
    package static let message3 =
        fuzzUnhex(
            """
            a7ea7dd47dddbcfcd736b91b174c6107b2ad26c161965a119a7b644e0c6b3d066c3a318c593c3dbd7e49\
            6f50662f6d4770bb4e21c75d36bfd31b99144a5aa2dfe20f576c5a0ffa4d76f65cb8
            """) ?? []

    /// A responder with the vector's identity and ephemeral: what the handshake target feeds.
    package func responderHandshake() -> ChannelHandshake {
        ChannelHandshake(
            role: .responder, identity: responder, configuration: .current,
            fixedEphemeral: responderEphemeral)
    }

    package func initiatorHandshake() -> ChannelHandshake {
        ChannelHandshake(
            role: .initiator, identity: initiator, configuration: .current,
            fixedEphemeral: initiatorEphemeral)
    }
}
