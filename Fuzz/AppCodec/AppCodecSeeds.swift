import LanChatCore

/// The seed corpus: one valid encoding of every kind (the samples of the codec's unit tests),
/// then the malformed shapes those tests reject.
enum AppCodecSeeds {
    static let id = MessageID(bytes: (0..<16).map { UInt8($0) * 17 }) ?? MessageID.random()

    static func all() -> [(name: String, bytes: [UInt8])] {
        let hello = AppMessage.hello(
            Hello(
                name: "alice@desk", presence: .away, statusText: "lunch", outStream: 7,
                outNext: 3, inStream: .max, inDelivered: 5, inRead: 4)
        ).encoded()
        let message = AppMessage.message(
            WireMessage(stream: 9, seq: 1, id: id, sentAt: -5, text: "héllo ✓")
        ).encoded()
        let grouped = AppMessage.message(
            WireMessage(
                stream: 9, seq: 2, id: id, sentAt: 1_700_000_000_000,
                group: [UInt8](repeating: 0xA5, count: 16), text: "to the group")
        ).encoded()
        var valid: [(String, [UInt8])] = [
            ("hello", hello),
            ("msg", message),
            ("msg-group", grouped),
            ("ack", AppMessage.ack(stream: 1, delivered: 2).encoded()),
            ("read", AppMessage.read(stream: 3, read: 4).encoded()),
            ("typing-on", AppMessage.typing(true).encoded()),
            ("typing-off", AppMessage.typing(false).encoded()),
            ("presence-busy", AppMessage.presence(.busy, statusText: "in a call").encoded()),
            ("reject-too-large", AppMessage.reject(stream: 5, seq: 6, reason: .tooLarge).encoded()),
            ("reject-other", AppMessage.reject(stream: 5, seq: 7, reason: .other(99)).encoded()),
        ]
        var badUTF8Hello = hello
        badUTF8Hello[5] = 0xFF
        var badUTF8Text = message
        badUTF8Text[badUTF8Text.count - 1] = 0xFF
        var badFlags = message
        badFlags[1 + 8 + 8 + 16 + 8] = 0x02
        var hugeLength = message
        hugeLength.replaceSubrange(
            (1 + 8 + 8 + 16 + 8 + 1)..<(1 + 8 + 8 + 16 + 8 + 5), with: [0xFF, 0xFF, 0xFF, 0xFF])
        let emptyText = AppMessage.message(
            WireMessage(stream: 1, seq: 1, id: id, sentAt: 0, text: "")
        ).encoded()
        valid += [
            ("bad-empty", []),
            ("bad-hello-truncated", Array(hello.prefix(20))),
            ("bad-hello-utf8", badUTF8Hello),
            ("bad-presence-value", [0x06, 3, 0, 0, 0, 0]),
            ("bad-msg-flags", badFlags),
            ("bad-msg-length", hugeLength),
            ("msg-invalid-utf8-text", badUTF8Text),
            ("msg-empty-text", emptyText),
            ("bad-trailing-byte", AppMessage.ack(stream: 1, delivered: 1).encoded() + [0]),
            ("bad-group-truncated", [0x08, 1, 2, 3]),
            ("unknown-kind", [0x09, 1, 2, 3]),
        ]
        valid += groupSeeds()
        return valid.map { (name: "seed-" + $0.0, bytes: $0.1) }
    }

    /// GROUP (0x08): a valid one, then each shape `decodeGroup` refuses.
    static func groupSeeds() -> [(String, [UInt8])] {
        let keys = (1...3).compactMap { index in
            PeerKey(bytes: [UInt8(index)] + [UInt8](repeating: 0, count: 31))
        }
        let groupID = GroupID(bytes: [UInt8](repeating: 0x5A, count: 16)) ?? GroupID.random()
        let group = AppMessage.group(
            GroupUpdate(id: groupID, version: 3, name: "ops", members: keys)
        ).encoded()
        let countOffset = 1 + 16 + 8 + 4 + 3
        var duplicate = group
        duplicate.replaceSubrange(
            (countOffset + 2 + 32)..<(countOffset + 2 + 64), with: keys[0].bytes)
        var badKey = group
        badKey.replaceSubrange(
            (countOffset + 2)..<(countOffset + 2 + 32), with: [UInt8](repeating: 0xFF, count: 32))
        var tooMany = group
        tooMany.replaceSubrange(countOffset..<(countOffset + 2), with: [0x01, 0x01])
        let longName = AppMessage.group(
            GroupUpdate(
                id: groupID, version: 1, name: String(repeating: "n", count: 65), members: keys)
        ).encoded()
        return [
            ("group", group),
            ("bad-group-duplicate-member", duplicate),
            ("bad-group-member-key", badKey),
            ("bad-group-count", tooMany),
            ("bad-group-name", longName),
            ("bad-group-short-member", Array(group.dropLast(1))),
        ]
    }
}
