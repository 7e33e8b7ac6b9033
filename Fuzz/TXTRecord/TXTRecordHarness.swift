import LanChatCore
import LanChatFuzzSupport

/// `TXTRecord.parse` (PROTOCOL.md §3.3, §10) under fuzzing.
///
/// Input: `framing ‖ strings`. Framing bit 0 clear: DNS TXT RDATA, each string `u8 length ‖
/// bytes` — what Avahi hands over. Set: `u16 length ‖ bytes`, so values over 255 bytes (which
/// no DNS string can carry, but the API accepts) are reachable too.
///
/// Properties: the parse never traps; string order does not decide acceptance or the
/// result; keys are case-insensitive (upper-casing every key changes nothing); an accepted
/// record has a canonical key and a status text within 128 bytes, and what we would publish
/// for it parses back to the same announcement (with our `v`).
enum TXTRecordHarness {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let wide = input.byte() & 1 == 1
        var strings: [[UInt8]] = []
        while !input.isAtEnd {
            let length = wide ? Int(input.u16()) : Int(input.byte())
            strings.append(input.take(length))
        }
        let result = TXTRecord.parse(strings)
        fuzzTrace("\(strings.count) strings: \(result)")

        let reversed = TXTRecord.parse(strings.reversed())
        switch (result, reversed) {
        case (.success(let a), .success(let b)):
            fuzzCheck(a == b, "string order changed the announcement: \(a) vs \(b)")
        case (.failure, .failure):
            break
        default:
            FuzzFailure.report("string order decided acceptance: \(result) vs \(reversed)")
        }

        let shouting = TXTRecord.parse(strings.map(upperCasingKey))
        fuzzCheck(shouting == result, "upper-case keys gave \(shouting) instead of \(result)")

        guard case .success(let announcement) = result else { return }
        fuzzCheck(
            PeerKey.isCanonical(announcement.key.bytes) && announcement.maxVersion >= 1
                && announcement.statusText.utf8.count <= TXTRecord.maxStatusTextBytes,
            "accepted an announcement outside the rules: \(announcement)")
        let published = TXTRecord.encode(
            Advertisement(
                instanceName: "fuzz (AAAA-AAAA)", port: 4711, key: announcement.key,
                status: announcement.status, statusText: announcement.statusText))
        var expected = announcement
        expected.maxVersion = TXTRecord.wireVersion
        let again = TXTRecord.parse(published)
        fuzzCheck(
            again == .success(expected),
            "re-published \(published) parses as \(again), expected \(expected)")
    }

    /// The ASCII letters before the first `=` in upper case; the value untouched.
    static func upperCasingKey(_ string: [UInt8]) -> [UInt8] {
        let end = string.firstIndex(of: UInt8(ascii: "=")) ?? string.endIndex
        var result = string
        for index in 0..<end where (0x61...0x7A).contains(result[index]) {
            result[index] -= 0x20
        }
        return result
    }
}
