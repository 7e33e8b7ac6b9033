import FoundationEssentials
import LanChatControl
import LanChatFuzzSupport

/// `Timestamp` (the control API's RFC 3339 form) both ways:
///
/// * the input (whole, and each line) parsed with `Timestamp(rfc3339:)`;
/// * the first 8 input bytes as milliseconds since the epoch, formatted. Those come from
///   peers: a MSG's `sent_at` is any Int64 the sender chose (PROTOCOL.md §9.1), and the daemon
///   shows it as a Timestamp in history.
///
/// Properties: neither direction traps; a time with a four-digit year formats as
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` and parses back to the same millisecond, also through JSON.
enum TimestampHarness {
    /// 0000-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z: what RFC 3339 can write.
    static let representable: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    static func run(_ bytes: [UInt8]) {
        if let parsed = Timestamp(rfc3339: String(decoding: bytes, as: UTF8.self)) {
            checkFormatting(parsed)
        }
        for line in bytes.split(separator: 0x0A).prefix(8) {
            if let parsed = Timestamp(rfc3339: String(decoding: line, as: UTF8.self)) {
                checkFormatting(parsed)
            }
        }
        var input = FuzzInput(bytes)
        let milliseconds = Int64(bitPattern: input.u64())
        checkFormatting(Timestamp(millisecondsSince1970: milliseconds))
    }

    static func checkFormatting(_ time: Timestamp) {
        let text = time.rfc3339
        guard representable.contains(time.millisecondsSince1970) else { return }
        fuzzCheck(
            text.utf8.count == 24 && text.hasSuffix("Z"),
            "\(time.millisecondsSince1970) ms formats as \(text)")
        fuzzCheck(
            Timestamp(rfc3339: text) == time,
            "\(text) parses as \(String(describing: Timestamp(rfc3339: text)))")
        do {
            let json = try ControlJSON.encoder().encode([time])
            let back = try ControlJSON.decoder().decode([Timestamp].self, from: json)
            fuzzCheck(back == [time], "\(text) changed through JSON")
        } catch {
            FuzzFailure.report("\(text) does not survive JSON: \(error)")
        }
    }
}
