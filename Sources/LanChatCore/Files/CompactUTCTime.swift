import Glibc

/// `YYYYMMDDTHHMMSSZ`: the time in the names of files moved aside (`identity.key.broken-…`,
/// `lanchat.sqlite3.damaged-…`), so they sort by when it happened and read as a date.
public enum CompactUTCTime {
    public static func format(secondsSince1970 seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "Z"
    }
}
