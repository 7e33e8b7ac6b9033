import LanChatCore

/// Seeds: handshake-shaped and transport-shaped streams of every frame type, the malformed
/// frames the wire tests reject, and lengths just outside each bound.
enum WireFramesSeeds {
    /// `u16 BE length ‖ body`.
    static func prefixed(_ body: [UInt8]) -> [UInt8] {
        [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// One item for the decoder: `tag ‖ type ‖ flags ‖ body`, framed.
    static func frame(tag: UInt8, type: UInt8, flags: UInt8 = 0, body: [UInt8] = []) -> [UInt8] {
        prefixed([tag, type, flags] + body)
    }

    static func all() -> [(name: String, bytes: [UInt8])] {
        let padding = [UInt8](repeating: 0x2E, count: 16)
        // Transport frames of at least 19 bytes (mode 0: bounds 19…65 535).
        let transport =
            frame(tag: 0, type: 1, flags: 0, body: Array("hello, ".utf8) + padding)
            + frame(tag: 0, type: 1, flags: 1, body: Array("world".utf8) + padding)
            + frame(tag: 0, type: 2, body: [1, 2, 3, 4, 5, 6, 7, 8] + padding)
            + frame(tag: 0, type: 3, body: [1, 2, 3, 4, 5, 6, 7, 8] + padding)
            + frame(tag: 0, type: 9, body: padding)
        let preamble: [UInt8] = [0x4C, 0x43, 0x48, 0x54, 1, 1, 0, 0]
        let responderSide =
            preamble + prefixed([UInt8](repeating: 0x7B, count: 32))
            + prefixed([UInt8](repeating: 0xA7, count: 76))
            + prefixed([UInt8](repeating: 0x24, count: 24))
            + transport
        let initiatorSide =
            prefixed([UInt8](repeating: 0xFF, count: 108))
            + prefixed([UInt8](repeating: 0x24, count: 24))
            + transport
        // Mode 3 with bounds 0…64 and no fixed item: short frames of every type.
        let small =
            frame(tag: 2, type: 4) + frame(tag: 3, type: 5, body: [0, 1])
            + frame(tag: 0, type: 1, flags: 0, body: Array("frag".utf8))
            + frame(tag: 0, type: 1, flags: 1, body: Array("ment".utf8))
            + frame(tag: 0, type: 2, body: [9, 9]) + frame(tag: 0, type: 0x42)
        let bounds: [UInt8] = [0, 0, 0, 64, 0]
        let malformed: [(String, [UInt8])] = [
            ("push-tag", frame(tag: 1, type: 1, flags: 1, body: [0x61])),
            ("tag-mismatch", frame(tag: 3, type: 1, flags: 1, body: [0x61])),
            ("data-flags", frame(tag: 0, type: 1, flags: 2)),
            ("ping-flags", frame(tag: 0, type: 2, flags: 1)),
            ("rekey-body", frame(tag: 2, type: 4, body: [0])),
            ("close-short", frame(tag: 3, type: 5, body: [1])),
            ("unknown-type-rekey-tag", frame(tag: 2, type: 0x42)),
            ("one-byte", prefixed([0])),
        ]
        var seeds: [(String, [UInt8])] = [
            ("transport", [0, 0, 0xFF] + transport),
            ("transport-bytewise", [0, 1, 0xFF] + transport),
            ("responder-handshake", [1, 3, 0xFF] + responderSide),
            ("initiator-handshake", [2, 5, 0xFF] + initiatorSide),
            ("initiator-version-reject", [2, 0, 0xFF] + [0x4C, 0x43, 0x48, 0x54, 0, 1, 0, 0]),
            ("small-frames", [3, 0, 0] + bounds + small),
            ("small-frames-fixed-preamble", [3, 2, 0] + [0, 0, 0, 64, 8] + preamble + small),
            (
                "reassembly-overflow",
                [3, 0, 0] + bounds + [UInt8](repeating: 0, count: 0)
                    + (0..<3).flatMap { _ in
                        frame(tag: 0, type: 1, body: [UInt8](repeating: 7, count: 60))
                    }
            ),
            ("transport-too-short", [0, 0, 0xFF] + prefixed([UInt8](repeating: 0, count: 18))),
            ("transport-truncated", [0, 0, 0xFF] + [0xFF, 0xFF, 0, 1, 0]),
            (
                "msg1-too-long",
                [1, 0, 0xFF] + preamble + prefixed([UInt8](repeating: 1, count: 33))
            ),
        ]
        seeds += malformed.map { ("bad-" + $0.0, [3, 0, 0] + bounds + $0.1) }
        return seeds.map { (name: "seed-" + $0.0, bytes: $0.1) }
    }
}
