import FoundationEssentials
import Testing

@testable import LanChatControl

/// RFC 3339 text ↔ milliseconds, the one time format of the control API.
@Suite struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (1_795_242_588_123, "2026-11-21T06:29:48.123Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
    ])
    func formatsAndParsesEdgeDates(milliseconds: Int64, text: String) throws {
        let timestamp = Timestamp(millisecondsSince1970: milliseconds)
        #expect(timestamp.rfc3339 == text)
        #expect(Timestamp(rfc3339: text) == timestamp)
    }

    @Test(arguments: [
        ("2026-11-21T08:39:48.123+05:30", "2026-11-21T03:09:48.123Z"),
        ("2026-11-20T22:09:48-05:00", "2026-11-21T03:09:48.000Z"),
        ("2026-11-21t03:09:48.1z", "2026-11-21T03:09:48.100Z"),
        ("2026-11-21T03:09:48.12Z", "2026-11-21T03:09:48.120Z"),
        ("2026-11-21T03:09:48.123999Z", "2026-11-21T03:09:48.123Z"),
    ])
    func normalisesOffsetsAndFractions(input: String, normalised: String) throws {
        let timestamp = try #require(Timestamp(rfc3339: input))
        #expect(timestamp.rfc3339 == normalised)
    }

    @Test(arguments: [
        "", "2026-11-21", "2026-11-21T03:09:48", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
        "2026-11-32T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T03:60:00Z",
        "2026-11-21T03:09:48.Z", "2026-11-21T03:09:48Zjunk", "2026-11-21 03:09:48Z",
        "26-11-21T03:09:48Z", "2026-11-21T03:09:48+0530",
    ])
    func rejectsMalformedText(input: String) {
        #expect(Timestamp(rfc3339: input) == nil)
    }

    @Test func decodingRejectsNonRFC3339Strings() throws {
        let json = Data(#"["yesterday"]"#.utf8)
        #expect(throws: DecodingError.self) {
            try ControlJSON.decoder().decode([Timestamp].self, from: json)
        }
    }

    @Test func encodesAsAJSONString() throws {
        let data = try ControlJSON.encoder().encode([Timestamp(millisecondsSince1970: 1)])
        #expect(String(decoding: data, as: UTF8.self) == #"["1970-01-01T00:00:00.001Z"]"#)
    }

    /// A peer chooses its `sent_at`: any Int64 must format without trapping, and into text
    /// that parses back (found by the fuzzer at Int64.min; the seed is in Fuzz/ControlRequest).
    @Test(arguments: [Int64.min, Int64.min + 807, -62_167_219_200_001, 253_402_300_800_000, .max])
    func extremeMomentsFormatAsTheNearestRepresentableOne(milliseconds: Int64) throws {
        let text = Timestamp(millisecondsSince1970: milliseconds).rfc3339
        let parsed = try #require(Timestamp(rfc3339: text))
        #expect(Timestamp.representable.contains(parsed.millisecondsSince1970))
        #expect(text == "0000-01-01T00:00:00.000Z" || text == "9999-12-31T23:59:59.999Z")
    }
}
