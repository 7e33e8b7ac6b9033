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
            ("unknown-group-kind", [0x08, 1, 2, 3]),
        ]
        return valid.map { (name: "seed-" + $0.0, bytes: $0.1) }
    }
}
