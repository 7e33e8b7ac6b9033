/// Seeds: programs for `SealProgram` — a conversation, every frame type with good and bad
/// tags and flags, fragmentation and overflow, and each kind of stream damage of §7.5.
enum FrameOpenerSeeds {
    static func message(_ size: Int, fill: UInt8 = 0x61, large: Bool = false) -> [UInt8] {
        [large ? 0x80 : 0x00, UInt8(size >> 8), UInt8(size & 0xFF), fill]
    }

    static func raw(type: UInt8, flags: UInt8, tag: UInt8, body: [UInt8] = []) -> [UInt8] {
        [0x01, type, flags, tag, UInt8(body.count)] + body
    }

    static func fragment(_ size: Int, end: Bool) -> [UInt8] {
        [0x02, UInt8(size >> 8), UInt8(size & 0xFF), end ? 1 : 0, 0x5A]
    }

    static let ping: [UInt8] = [0x03, 8, 1, 2, 3, 4, 5, 6, 7, 8]
    static let pong: [UInt8] = [0x04, 8, 1, 2, 3, 4, 5, 6, 7, 8]
    static let close: [UInt8] = [0x05, 0, 5]

    static func all() -> [(name: String, bytes: [UInt8])] {
        let chat = message(5) + ping + message(200, fill: 7) + pong + message(0) + close
        let frames =
            raw(type: 1, flags: 0, tag: 0, body: Array("frag".utf8))
            + raw(type: 1, flags: 1, tag: 0, body: Array("ment".utf8))
            + raw(type: 4, flags: 0, tag: 2) + message(30)
            + raw(type: 0x42, flags: 0, tag: 0, body: [1])
            + raw(type: 5, flags: 0, tag: 3, body: [0, 6])
        let bad: [(String, [UInt8])] = [
            ("push-tag", raw(type: 1, flags: 1, tag: 1, body: [0x61])),
            ("tag-mismatch", raw(type: 1, flags: 1, tag: 3, body: [0x61])),
            ("data-flags", raw(type: 1, flags: 3, tag: 0)),
            ("pong-flags", raw(type: 3, flags: 1, tag: 0)),
            ("rekey-body", raw(type: 4, flags: 0, tag: 2, body: [0])),
            ("close-short", raw(type: 5, flags: 0, tag: 3, body: [1])),
            ("unknown-type-final-tag", raw(type: 0x42, flags: 0, tag: 3)),
            ("tag-out-of-range", raw(type: 1, flags: 1, tag: 0x40, body: [0x61])),
        ]
        var seeds: [(String, [UInt8])] = [
            ("chat", [0] + chat),
            ("chat-bytewise", [1] + chat),
            ("chat-chunks", [13] + chat),
            ("frames", [0] + frames),
            ("multi-fragment", [3] + message(4000, large: true) + close),
            ("too-large-then-chat", [0] + message(0xFFFF, large: true) + chat),
            ("reassembly-overflow", [0] + (0..<17).flatMap { _ in fragment(65_516, end: false) }),
            ("after-close", [0] + close + message(5) + ping),
            ("damage-bit-flip", [0] + chat + [0x07, 0, 40, 3]),
            ("damage-truncate-mid-frame", [0] + chat + [0x08, 0, 0, 30, 0, 0]),
            ("damage-cut-then-more", [0] + message(5) + ping + [0x08, 0, 0, 26, 0, 0] + pong),
            ("damage-delete-frame", [0] + message(5) + ping + pong + [0x08, 1, 0, 26, 0, 29]),
            ("damage-duplicate-frame", [0] + message(5) + ping + [0x08, 2, 0, 26, 0, 29]),
            ("damage-truncate-at-frame", [0] + message(5) + ping + [0x08, 0, 0, 26, 0, 0]),
            ("damage-garbage", [0] + message(5) + [0x06, 4, 0, 19, 0xAA, 0xBB] + ping),
        ]
        seeds += bad.map { ("bad-" + $0.0, [0] + message(5) + $0.1 + ping) }
        return seeds.map { (name: "seed-" + $0.0, bytes: $0.1) }
    }
}
