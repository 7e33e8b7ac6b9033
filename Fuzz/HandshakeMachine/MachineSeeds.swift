import LanChatCore

/// Seeds: complete handshakes from the peer's side in both roles and every configuration,
/// then each payload and version rule broken once (§3.4, §3.7), a VERSION_REJECT, our own key,
/// and bad bytes in each position.
enum MachineSeeds {
    static let peerEphemeral = [UInt8](repeating: 0x07, count: 32)
    static let peerStatic = [UInt8](repeating: 0x0B, count: 32)
    static let tag = [UInt8](repeating: 0, count: 16)
    static let header = prefixed([UInt8](repeating: 0x24, count: 24))
    static let transport = prefixed([UInt8](repeating: 0x5C, count: 40))

    static func prefixed(_ body: [UInt8]) -> [UInt8] {
        [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    static func payload(maxVersion: UInt8 = 1, capabilities: UInt64 = 0, tail: [UInt8] = [])
        -> [UInt8]
    {
        var bytes = HandshakePayload(maxVersion: maxVersion, capabilities: capabilities).bytes
        bytes += tail
        return bytes
    }

    /// What an initiator sends to us as responder.
    static func toResponder(
        wire: UInt8 = 1, max: UInt8 = 1, payload: [UInt8], key: [UInt8] = peerStatic
    ) -> [UInt8] {
        Preamble(wireVersion: wire, maxVersion: max).bytes + prefixed(peerEphemeral)
            + prefixed(key + tag + payload + tag) + header + transport
    }

    /// What a responder sends to us as initiator.
    static func toInitiator(payload: [UInt8], key: [UInt8] = peerStatic) -> [UInt8] {
        prefixed(peerEphemeral + key + tag + payload + tag) + header + transport
    }

    static func all() -> [(name: String, bytes: [UInt8])] {
        let good = payload()
        let tlvs = payload(tail: [0, 7, 0, 3, 1, 2, 3, 0x12, 0x34, 0, 0])
        var failedTag = toResponder(payload: good)
        failedTag[8 + 34 + 2 + 32] = 0xFF
        let seeds: [(String, UInt8, [UInt8])] = [
            ("responder", 0b0000_0010, toResponder(payload: good)),
            ("responder-chunks", 0b0011_0010, toResponder(payload: tlvs)),
            ("responder-bytewise", 0b0001_0010, toResponder(payload: good)),
            ("responder-refuses", 0b0000_0000, toResponder(payload: good)),
            (
                "responder-downgrade-detected", 0b0000_0110,
                toResponder(max: 2, payload: payload(maxVersion: 2))
            ),
            (
                "responder-v1-peer", 0b0000_0110,
                toResponder(max: 1, payload: payload(maxVersion: 1))
            ),
            (
                "responder-speaks-v2", 0b0000_1010,
                toResponder(wire: 2, max: 2, payload: payload(maxVersion: 2))
            ),
            (
                "responder-capabilities", 0b0000_1110,
                toResponder(payload: payload(capabilities: 0xFF))
            ),
            ("initiator", 0b0000_0011, toInitiator(payload: good)),
            ("initiator-chunks", 0b0101_0011, toInitiator(payload: tlvs)),
            ("initiator-speaks-v2", 0b0000_1011, toInitiator(payload: payload(maxVersion: 2))),
            ("initiator-version-reject", 0b0000_0011, Preamble.versionReject(maxVersion: 3)),
            (
                "max-version-mismatch", 0b0000_0010,
                toResponder(max: 1, payload: payload(maxVersion: 2))
            ),
            (
                "self-connection", 0b0000_0010,
                toResponder(payload: good, key: [UInt8](repeating: 0x09, count: 32))
            ),
            ("bad-format", 0b0000_0010, toResponder(payload: [2] + good.dropFirst())),
            ("bad-max-zero", 0b0000_0010, toResponder(payload: payload(maxVersion: 0))),
            ("bad-tlv-overrun", 0b0000_0010, toResponder(payload: payload(tail: [0, 1, 0, 9, 1]))),
            (
                "bad-tlv-duplicate", 0b0000_0010,
                toResponder(payload: payload(tail: [0, 1, 0, 0, 0, 1, 0, 0]))
            ),
            ("bad-tlv-header", 0b0000_0010, toResponder(payload: payload(tail: [0, 1, 0]))),
            ("bad-msg3-too-short", 0b0000_0010, toResponder(payload: Array(good.prefix(11)))),
            ("bad-aead", 0b0000_0010, failedTag),
            (
                "bad-ephemeral", 0b0000_0010,
                Preamble(wireVersion: 1, maxVersion: 1).bytes
                    + prefixed([UInt8](repeating: 0, count: 32))
            ),
            ("bad-version", 0b0000_0010, Preamble(wireVersion: 3, maxVersion: 3).bytes),
            ("payload-only", 0b0000_0010, tlvs),
        ]
        return seeds.map { (name: "seed-" + $0.0, bytes: [$0.1] + $0.2) }
    }
}
