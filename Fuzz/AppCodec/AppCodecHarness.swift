import LanChatCore
import LanChatFuzzSupport

/// The application codec under fuzzing: `AppMessage.decode` must never trap, and whatever it
/// accepts must survive a round trip through `encoded()`.
enum AppCodecHarness {
    static func run(_ bytes: [UInt8]) {
        let message: AppMessage
        do {
            message = try AppMessage.decode(bytes)
        } catch {
            return
        }
        checkLimits(message, bytes: bytes)
        let encoded = message.encoded()
        let again: AppMessage
        do {
            again = try AppMessage.decode(encoded)
        } catch {
            FuzzFailure.report(
                "re-encoded \(message) does not decode (\(error)): \(fuzzHex(encoded))")
        }
        fuzzCheck(
            again == expectedAfterRoundTrip(message),
            "round trip changed \(message) into \(again); input \(fuzzHex(bytes))")
        // The encoder's output is canonical: encoding what it decodes gives the same bytes.
        fuzzCheck(again.encoded() == encoded, "encoding is not stable for \(message)")
    }

    /// A MSG whose text was unacceptable carries no text when encoded again (the encoder only
    /// ever sends acceptable text), so it comes back as an empty, hence invalid, text with
    /// every framing field intact. Everything else must come back unchanged.
    static func expectedAfterRoundTrip(_ message: AppMessage) -> AppMessage {
        guard case .message(var wire) = message, case .unacceptable = wire.text else {
            return message
        }
        wire.text = .unacceptable(.invalidText)
        return .message(wire)
    }

    /// The limits of PROTOCOL.md §9.1 as seen from the decoded value.
    static func checkLimits(_ message: AppMessage, bytes: [UInt8]) {
        switch message {
        case .hello(let hello):
            fuzzCheck(
                hello.name.utf8.count <= Limits.maxDisplayNameBytes
                    && hello.statusText.utf8.count <= Limits.maxStatusTextBytes,
                "HELLO over its limits accepted: \(fuzzHex(bytes))")
        case .presence(_, let statusText):
            fuzzCheck(
                statusText.utf8.count <= Limits.maxStatusTextBytes,
                "PRESENCE text over its limit accepted: \(fuzzHex(bytes))")
        case .message(let wire):
            if case .valid(let text) = wire.text {
                fuzzCheck(
                    !text.isEmpty && text.utf8.count <= Limits.maxTextBytes,
                    "MSG text outside 1…65 536 bytes accepted: \(fuzzHex(bytes))")
                fuzzCheck(
                    !text.utf8.contains(0), "MSG text with U+0000 accepted: \(fuzzHex(bytes))")
            }
            fuzzCheck(
                wire.group.map { $0.count == 16 } ?? true, "MSG group id is not 16 bytes")
        case .group(let group):
            fuzzCheck(
                group.name.utf8.count <= Limits.maxGroupNameBytes
                    && !group.name.allSatisfy(\.isWhitespace)
                    && group.members.count <= Limits.maxGroupMembers
                    && Set(group.members).count == group.members.count,
                "GROUP over its limits accepted: \(fuzzHex(bytes))")
        case .unknown(let kind):
            fuzzCheck(
                bytes.first == kind && !(1...8).contains(kind),
                "a known kind decoded as unknown: \(fuzzHex(bytes))")
        case .typing:
            fuzzCheck(
                bytes.count == 2 && bytes[1] <= 1, "TYPING state other than 0 or 1 accepted")
        case .ack, .read, .reject:
            break
        }
    }
}
