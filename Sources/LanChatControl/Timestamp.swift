/// A moment in time as the control API shows it: RFC 3339, UTC, with milliseconds
/// (`2026-11-21T06:15:16.018Z`). Kept as integer milliseconds since the Unix epoch so that
/// the daemon, the store and the CLI agree to the millisecond and formatting needs no locale.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    public var description: String { rfc3339 }

    /// The moments RFC 3339 can write (four-digit years): 0000-01-01 to 9999-12-31.
    public static let representable: ClosedRange<Int64> =
        -62_167_219_200_000...253_402_300_799_999

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`. Written digit by digit into one buffer: every message in
    /// every answer carries timestamps, so this is on the API's hot path. A moment outside
    /// `representable` (only a peer's made-up clock gets there) is written as the nearest
    /// representable one, so the text always parses back and nothing can overflow.
    public var rfc3339: String {
        String(unsafeUninitializedCapacity: Self.rfc3339Length) { buffer in
            writeRFC3339(into: buffer)
            return Self.rfc3339Length
        }
    }

    /// The length of `rfc3339`, always.
    public static let rfc3339Length = 24

    /// Writes `rfc3339` into the first `rfc3339Length` bytes of `buffer` (which must have
    /// them), for writers that build a whole answer in one buffer.
    public func writeRFC3339(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= Self.rfc3339Length)
        let clamped = min(
            max(millisecondsSince1970, Self.representable.lowerBound),
            Self.representable.upperBound)
        let milliseconds = floorMod(clamped, 1000)
        let seconds = floorDiv(clamped, 1000)
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = floorMod(seconds, 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        func put(_ value: Int64, digits: Int, at offset: Int) {
            var rest = value
            for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        put(year, digits: 4, at: 0)
        buffer[4] = UInt8(ascii: "-")
        put(month, digits: 2, at: 5)
        buffer[7] = UInt8(ascii: "-")
        put(day, digits: 2, at: 8)
        buffer[10] = UInt8(ascii: "T")
        put(secondOfDay / 3600, digits: 2, at: 11)
        buffer[13] = UInt8(ascii: ":")
        put(secondOfDay / 60 % 60, digits: 2, at: 14)
        buffer[16] = UInt8(ascii: ":")
        put(secondOfDay % 60, digits: 2, at: 17)
        buffer[19] = UInt8(ascii: ".")
        put(milliseconds, digits: 3, at: 20)
        buffer[23] = UInt8(ascii: "Z")
    }

    /// Accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil for anything else.
    public init?(rfc3339 text: String) {
        let bytes = Array(text.utf8)
        var parser = DigitParser(bytes: bytes)
        guard let year = parser.number(4), parser.expect("-"),
            let month = parser.number(2), parser.expect("-"),
            let day = parser.number(2), parser.expect("T") || parser.expect("t"),
            let hour = parser.number(2), parser.expect(":"),
            let minute = parser.number(2), parser.expect(":"),
            let second = parser.number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var milliseconds: Int64 = 0
        if parser.expect(".") {
            var digits = 0
            while let digit = parser.digit() {
                if digits < 3 { milliseconds = milliseconds * 10 + Int64(digit) }
                digits += 1
            }
            guard digits > 0 else { return nil }
            // `min`: a fraction of more than 3 digits must not form the invalid range 4..<3.
            for _ in min(digits, 3)..<3 { milliseconds *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if parser.expect("Z") || parser.expect("z") {
        } else if let sign = parser.sign(), let offsetHour = parser.number(2), parser.expect(":"),
            let offsetMinute = parser.number(2)
        {
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        } else {
            return nil
        }
        guard parser.atEnd else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.init(millisecondsSince1970: seconds * 1000 + milliseconds)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not an RFC 3339 timestamp: \(text)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    // Howard Hinnant's civil-from-days and days-from-civil (proleptic Gregorian calendar).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = floorDiv(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = floorDiv(adjustedYear, 400)
        let yearOfEra = adjustedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

private func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
}

/// The remainder in 0..<divisor (for a positive divisor), without the multiplication that
/// overflows near Int64.min (found by the fuzzer: a peer chooses its `sent_at`).
private func floorMod(_ value: Int64, _ divisor: Int64) -> Int64 {
    let remainder = value % divisor
    return remainder < 0 ? remainder + divisor : remainder
}

private struct DigitParser {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }

    mutating func digit() -> Int64? {
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
        else { return nil }
        defer { index += 1 }
        return Int64(bytes[index] - UInt8(ascii: "0"))
    }

    mutating func number(_ width: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<width {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func expect(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int64? {
        if expect("+") { return 1 }
        if expect("-") { return -1 }
        return nil
    }
}
