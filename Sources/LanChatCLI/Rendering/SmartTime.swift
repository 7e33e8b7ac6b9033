import LanChatControl

/// Short, relative timestamps for text output (PRODUCT.md §4): `now`, `5m`, `2h`,
/// `Yesterday`, `Mon`, `12/24`, and `12/24/2025` for dates in another year. JSON output keeps
/// RFC 3339; this is only for people.
package enum SmartTime {
    package static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    package static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December",
    ]
    package static let fullWeekdayNames = [
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
    ]

    /// - under a minute ago (or in the future by less than a minute): `now`
    /// - under an hour: `5m`; under 6 hours, or earlier the same local day: `2h`
    /// - the previous local day: `Yesterday`; within the last week: `Mon`
    /// - the same year, or within the last 6 months: `12/24`; older: `12/24/2025`
    package static func format(
        _ instant: Timestamp, now: Timestamp, zone: any UTCOffsetProvider
    ) -> String {
        let elapsed = now.millisecondsSince1970 - instant.millisecondsSince1970
        let minute: Int64 = 60_000
        let hour = 60 * minute
        if elapsed < minute && elapsed > -minute {
            return "now"
        }
        let then = LocalDateTime(instant, in: zone)
        let today = LocalDateTime(now, in: zone)
        guard elapsed > 0 else { return date(then, today: today) }
        if elapsed < hour {
            return "\(elapsed / minute)m"
        }
        let daysAgo = today.dayNumber - then.dayNumber
        if elapsed < 6 * hour || daysAgo == 0 {
            return "\(elapsed / hour)h"
        }
        if daysAgo == 1 {
            return "Yesterday"
        }
        if daysAgo < 7 {
            return weekdayNames[then.weekday]
        }
        return date(then, today: today)
    }

    /// `12/24` in the current year or the last 6 months, else `12/24/2025`.
    private static func date(_ then: LocalDateTime, today: LocalDateTime) -> String {
        let daysApart = abs(today.dayNumber - then.dayNumber)
        if then.year == today.year || daysApart < 183 {
            return "\(then.month)/\(then.day)"
        }
        return "\(then.month)/\(then.day)/\(then.year)"
    }

    /// `14:05`, for message lines under a day separator.
    package static func clock(_ time: LocalDateTime) -> String {
        twoDigits(time.hour) + ":" + twoDigits(time.minute)
    }

    /// `14:05` today; else with its day: `Yesterday 14:05`, `Mon 14:05`, `12/24 14:05`,
    /// `12/24/2025 14:05` (for lines of a stream, which has no day separators).
    package static func stamp(_ time: LocalDateTime, today: LocalDateTime) -> String {
        let day: String
        switch today.dayNumber - time.dayNumber {
        case 0: return clock(time)
        case 1: day = "Yesterday"
        case 2..<7: day = weekdayNames[time.weekday]
        default: day = date(time, today: today)
        }
        return day + " " + clock(time)
    }

    /// Day separator text: `Today`, `Yesterday`, `Monday 23 November`, or with the year when
    /// it is not the current one.
    package static func dayHeading(_ day: LocalDateTime, today: LocalDateTime) -> String {
        switch today.dayNumber - day.dayNumber {
        case 0: return "Today"
        case 1: return "Yesterday"
        default:
            let text = "\(fullWeekdayNames[day.weekday]) \(day.day) \(monthNames[day.month - 1])"
            return day.year == today.year ? text : text + " \(day.year)"
        }
    }

    /// `3d 4h`, `2h 5m`, `4m 10s`, `12s`: the two largest units of a duration.
    package static func duration(seconds: Double) -> String {
        // Clamped before converting: a huge or non-finite value from the wire must not trap.
        let total = seconds.isFinite && seconds > 0 ? Int64(min(seconds, 1e15)) : 0
        let days = total / 86_400
        let hours = total / 3600 % 24
        let minutes = total / 60 % 60
        let secs = total % 60
        if days > 0 { return "\(days)d \(hours)h" }
        if hours > 0 { return "\(hours)h \(minutes)m" }
        if minutes > 0 { return "\(minutes)m \(secs)s" }
        return "\(secs)s"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
