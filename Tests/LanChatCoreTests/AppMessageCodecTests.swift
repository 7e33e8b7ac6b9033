import Testing

@testable import LanChatCore

@Suite("Application message codec (PROTOCOL.md §9.1)")
struct AppMessageCodecTests {
    static let id = MessageID.random()

    static let samples: [AppMessage] = [
        .hello(
            Hello(
                name: "alice@desk", presence: .away, statusText: "lunch", outStream: 7,
                outNext: 3, inStream: .max, inDelivered: 5, inRead: 4)),
        .message(WireMessage(stream: 9, seq: 1, id: id, sentAt: -5, text: "héllo ✓")),
        .message(
            WireMessage(
                stream: 9, seq: 2, id: id, sentAt: 1, text: String(repeating: "x", count: 65_536))),
        .ack(stream: 1, delivered: 2),
        .read(stream: 3, read: 4),
        .typing(true),
        .typing(false),
        .presence(.busy, statusText: ""),
        .reject(stream: 5, seq: 6, reason: .tooLarge),
        .reject(stream: 5, seq: 7, reason: .other(99)),
    ]

    @Test(arguments: samples)
    func everyKindRoundTrips(message: AppMessage) throws {
        #expect(try AppMessage.decode(message.encoded()) == message)
    }

    @Test func helloHasTheDocumentedLayout() {
        let bytes = AppMessage.hello(
            Hello(
                name: "a", presence: .busy, statusText: "", outStream: 1, outNext: 2,
                inStream: 3, inDelivered: 4, inRead: 5)
        ).encoded()
        #expect(bytes.count == 1 + 4 + 1 + 1 + 4 + 5 * 8)
        #expect(Array(bytes[0..<7]) == [0x01, 0, 0, 0, 1, 0x61, 0x02])
    }

    @Test func everyTruncationOfEveryKindIsAnErrorNotACrash() {
        for sample in Self.samples {
            let bytes = sample.encoded()
            for length in 0..<bytes.count {
                #expect(throws: AppCodecError.self) {
                    try AppMessage.decode(Array(bytes[0..<length]))
                }
            }
        }
    }

    @Test func trailingBytesAreAProtocolError() {
        #expect(throws: AppCodecError.trailingBytes(1)) {
            try AppMessage.decode(AppMessage.ack(stream: 1, delivered: 1).encoded() + [0])
        }
    }

    @Test func unknownKindsAreIgnoredNotErrors() throws {
        #expect(try AppMessage.decode([0x09, 1, 2, 3]) == .unknown(kind: 0x09))
        #expect(try AppMessage.decode([0xEE]) == .unknown(kind: 0xEE))
    }

    @Test func invalidUTF8InHelloClosesButInMsgIsRejected() throws {
        var hello = AppMessage.hello(
            Hello(
                name: "ab", presence: .available, statusText: "", outStream: 0, outNext: 1,
                inStream: 0, inDelivered: 0, inRead: 0)
        ).encoded()
        hello[5] = 0xFF
        #expect(throws: AppCodecError.invalidUTF8) { try AppMessage.decode(hello) }

        var message = AppMessage.message(
            WireMessage(stream: 1, seq: 1, id: Self.id, sentAt: 0, text: "ab")
        ).encoded()
        message[message.count - 1] = 0xFF
        guard case .message(let decoded) = try AppMessage.decode(message) else {
            Issue.record("not a MSG")
            return
        }
        #expect(decoded.text == .unacceptable(.invalidText))
    }

    /// The store would keep only what precedes a NUL, after the ACK said all of it was
    /// stored: such a MSG is REJECTed as invalid text (PROTOCOL.md §9.1 reason 2).
    @Test func aTextWithNULIsRejectedAsInvalidText() throws {
        for text in ["a\u{0}b", "\u{0}", "ends with NUL\u{0}"] {
            let message = AppMessage.message(
                WireMessage(stream: 1, seq: 1, id: Self.id, sentAt: 0, text: text)
            ).encoded()
            guard case .message(let decoded) = try AppMessage.decode(message) else {
                Issue.record("not a MSG")
                return
            }
            #expect(decoded.text == .unacceptable(.invalidText), "\(text.debugDescription)")
        }
    }

    @Test func oversizedAndEmptyTextsAreRejectedWithTheirReasons() throws {
        let big = WireMessage(
            stream: 1, seq: 1, id: Self.id, sentAt: 0, text: String(repeating: "y", count: 65_537))
        guard
            case .message(let decodedBig) = try AppMessage.decode(AppMessage.message(big).encoded())
        else { return #expect(Bool(false)) }
        #expect(decodedBig.text == .unacceptable(.tooLarge))

        let empty = WireMessage(stream: 1, seq: 1, id: Self.id, sentAt: 0, text: "")
        guard
            case .message(let decodedEmpty) = try AppMessage.decode(
                AppMessage.message(empty).encoded())
        else { return #expect(Bool(false)) }
        #expect(decodedEmpty.text == .unacceptable(.invalidText))
    }

    @Test func aHugeTextLengthIsTruncationNotAnAllocation() {
        var bytes = AppMessage.message(
            WireMessage(stream: 1, seq: 1, id: Self.id, sentAt: 0, text: "a")
        ).encoded()
        bytes.replaceSubrange(
            (bytes.count - 5)..<(bytes.count - 1), with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: AppCodecError.truncated) { try AppMessage.decode(bytes) }
    }

    @Test func overlongHelloNameAndUnknownPresenceAreErrors() {
        let longName = AppMessage.hello(
            Hello(
                name: String(repeating: "n", count: 65), presence: .available, statusText: "",
                outStream: 0, outNext: 1, inStream: 0, inDelivered: 0, inRead: 0)
        ).encoded()
        #expect(throws: AppCodecError.fieldTooLong(65)) { try AppMessage.decode(longName) }
        #expect(throws: AppCodecError.invalidPresence(3)) {
            try AppMessage.decode([0x06, 3, 0, 0, 0, 0])
        }
        // TYPING is 1 or 0 (§9.1); QA's 7 was taken as "typing".
        #expect((try? AppMessage.decode([0x05, 1])) == .typing(true))
        #expect(throws: AppCodecError.invalidTyping(7)) { try AppMessage.decode([0x05, 7]) }
    }

    @Test func unknownMsgFlagsAreAProtocolError() {
        var bytes = AppMessage.message(
            WireMessage(stream: 1, seq: 1, id: Self.id, sentAt: 0, text: "a")
        ).encoded()
        bytes[1 + 8 + 8 + 16 + 8] = 0x02
        #expect(throws: AppCodecError.invalidFlags(0x02)) { try AppMessage.decode(bytes) }
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...64, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty { bytes[0] = UInt8.random(in: 1...8, using: &generator) }
            _ = try? AppMessage.decode(bytes)
        }
    }
}

extension AppMessage: CustomTestStringConvertible {
    public var testDescription: String { "\(self)".prefix(80).description }
}
