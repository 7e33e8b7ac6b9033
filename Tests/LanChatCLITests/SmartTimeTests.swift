import LanChatCLI
import LanChatControl
import Testing

/// Smart timestamps with a fixed "now" (Saturday 2026-11-21 12:00 UTC) and fixed zones.
@Suite struct SmartTimeTests {
    static let now = Timestamp(millisecondsSince1970: 1_795_262_400_000)
    static let utc = FixedUTCOffset(seconds: 0)

    static func ago(_ seconds: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: now.millisecondsSince1970 - seconds * 1000)
    }

    static func at(_ text: String) -> Timestamp {
        Timestamp(rfc3339: text) ?? Timestamp(millisecondsSince1970: 0)
    }

    @Test(arguments: [
        (ago(30), "now"),
        (ago(-30), "now"),
        (ago(5 * 60), "5m"),
        (ago(3599), "59m"),
        (ago(2 * 3600), "2h"),
        (ago(11 * 3600), "11h"),
        (at("2026-11-20T23:00:00Z"), "Yesterday"),
        (at("2026-11-20T09:00:00Z"), "Yesterday"),
        (at("2026-11-16T09:00:00Z"), "Mon"),
        (at("2026-11-15T09:00:00Z"), "Sun"),
        (at("2026-11-14T12:00:00Z"), "11/14"),
        (at("2026-01-02T09:00:00Z"), "1/2"),
        (at("2025-12-24T09:00:00Z"), "12/24/2025"),
        (at("2027-03-01T00:00:00Z"), "3/1"),
    ])
    func bucketsInUTC(instant: Timestamp, expected: String) {
        #expect(SmartTime.format(instant, now: Self.now, zone: Self.utc) == expected)
    }

    @Test func recentDaysAcrossANewYearStayShort() {
        let now = Self.at("2026-01-05T12:00:00Z")
        #expect(
            SmartTime.format(Self.at("2025-12-24T09:00:00Z"), now: now, zone: Self.utc) == "12/24")
    }

    @Test func theLocalDayDecidesYesterday() {
        // 8.5 hours before now: the previous day in UTC, the same day 9 hours east.
        let instant = Self.at("2026-11-20T16:00:00Z")
        let morning = Self.at("2026-11-21T00:30:00Z")
        let tokyo = FixedUTCOffset(seconds: 9 * 3600)
        #expect(SmartTime.format(instant, now: morning, zone: Self.utc) == "Yesterday")
        #expect(SmartTime.format(instant, now: morning, zone: tokyo) == "8h")
        // Seven hours before a local 00:30 is the previous local day.
        #expect(
            SmartTime.format(Self.at("2026-11-20T08:30:00Z"), now: morning, zone: tokyo)
                == "Yesterday")
    }

    @Test func localDateTimeOfKnownInstants() {
        let epoch = LocalDateTime(Timestamp(millisecondsSince1970: 0), offsetSeconds: 0)
        #expect(epoch.year == 1970 && epoch.month == 1 && epoch.day == 1 && epoch.weekday == 4)
        let beforeEpoch = LocalDateTime(Timestamp(millisecondsSince1970: -1), offsetSeconds: 0)
        #expect(beforeEpoch.year == 1969 && beforeEpoch.month == 12 && beforeEpoch.day == 31)
        #expect(beforeEpoch.hour == 23 && beforeEpoch.minute == 59 && beforeEpoch.weekday == 3)
        let leap = LocalDateTime(Self.at("2000-02-29T22:30:00Z"), offsetSeconds: 5400)
        #expect(leap.month == 3 && leap.day == 1 && leap.hour == 0 && leap.minute == 0)
        let west = LocalDateTime(Self.at("2026-01-01T02:00:00Z"), offsetSeconds: -5 * 3600)
        #expect(west.year == 2025 && west.month == 12 && west.day == 31 && west.hour == 21)
    }

    @Test func dayHeadings() {
        let today = LocalDateTime(Self.now, offsetSeconds: 0)
        func heading(_ text: String) -> String {
            SmartTime.dayHeading(LocalDateTime(Self.at(text), offsetSeconds: 0), today: today)
        }
        #expect(heading("2026-11-21T00:00:00Z") == "Today")
        #expect(heading("2026-11-20T23:59:59Z") == "Yesterday")
        #expect(heading("2026-11-16T10:00:00Z") == "Monday 16 November")
        #expect(heading("2025-12-24T10:00:00Z") == "Wednesday 24 December 2025")
    }

    @Test func clockIsZeroPadded() {
        #expect(
            SmartTime.clock(LocalDateTime(Self.at("2026-11-21T07:05:00Z"), offsetSeconds: 0))
                == "07:05")
    }

    @Test(arguments: [
        (7384.25, "2h 3m"), (59, "59s"), (61, "1m 1s"), (90061, "1d 1h"), (-5, "0s"),
        (Double.infinity, "0s"), (Double.nan, "0s"), (1e300, "11574074074d 1h"),
    ])
    func durations(seconds: Double, expected: String) {
        #expect(SmartTime.duration(seconds: seconds) == expected)
    }

    @Test func systemZoneGivesAPlausibleOffset() {
        let offset = SystemUTCOffset().utcOffsetSeconds(at: Self.now)
        #expect((-12 * 3600...14 * 3600).contains(offset))
    }
}
