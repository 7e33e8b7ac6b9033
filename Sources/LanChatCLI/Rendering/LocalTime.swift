import LanChatControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Gives the local time zone's offset from UTC at an instant. Injected so that rendering is
/// a pure function of its inputs: tests use `FixedUTCOffset`, the CLI `SystemUTCOffset`.
package protocol UTCOffsetProvider: Sendable {
    func utcOffsetSeconds(at instant: Timestamp) -> Int
}

/// A constant offset, e.g. `FixedUTCOffset(seconds: 3600)` for CET without daylight saving.
package struct FixedUTCOffset: UTCOffsetProvider {
    package var seconds: Int

    package init(seconds: Int) {
        self.seconds = seconds
    }

    package func utcOffsetSeconds(at instant: Timestamp) -> Int { seconds }
}

/// The process's local time zone (`TZ`, `/etc/localtime`) through `localtime_r`, which
/// applies daylight saving for each instant.
package struct SystemUTCOffset: UTCOffsetProvider {
    package init() {}

    package func utcOffsetSeconds(at instant: Timestamp) -> Int {
        var seconds = time_t(floorDivide(instant.millisecondsSince1970, 1000))
        var broken = tm()
        guard localtime_r(&seconds, &broken) != nil else { return 0 }
        return Int(broken.tm_gmtoff)
    }
}

/// An instant as a wall clock in some time zone shows it.
package struct LocalDateTime: Equatable, Sendable {
    package var year: Int
    /// 1…12
    package var month: Int
    /// 1…31
    package var day: Int
    package var hour: Int
    package var minute: Int
    /// 0 = Sunday … 6 = Saturday.
    package var weekday: Int
    /// Days since 1970-01-01 in local time: two instants are on the same local day when
    /// these are equal, and `today - 1` is yesterday.
    package var dayNumber: Int

    package init(_ instant: Timestamp, offsetSeconds: Int) {
        let localSeconds = floorDivide(instant.millisecondsSince1970, 1000) + Int64(offsetSeconds)
        let days = floorDivide(localSeconds, 86_400)
        let secondOfDay = Int(localSeconds - days * 86_400)
        dayNumber = Int(days)
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        weekday = Int((days % 7 + 7 + 4) % 7)  // 1970-01-01 was a Thursday (4).
        (year, month, day) = Self.civilDate(daysSinceEpoch: days)
    }

    package init(_ instant: Timestamp, in zone: any UTCOffsetProvider) {
        self.init(instant, offsetSeconds: zone.utcOffsetSeconds(at: instant))
    }

    /// Gregorian year, month and day of a day count, computed in 400-year cycles of 146 097
    /// days, with years starting on March 1st so that the leap day falls last.
    private static func civilDate(daysSinceEpoch days: Int64) -> (Int, Int, Int) {
        let daysSinceMarchYear0 = days + 719_468
        let cycle = floorDivide(daysSinceMarchYear0, 146_097)
        let dayOfCycle = daysSinceMarchYear0 - cycle * 146_097
        let yearOfCycle =
            (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}

func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
}
