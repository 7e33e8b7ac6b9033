/// A strict, forward-only JSON reader (RFC 8259) for the fast decoding path of the control
/// API's results. It reads straight from the response bytes and allocates only the values it
/// returns, plus one reused buffer for strings with escapes: a 1 000-message `send` answer
/// then costs a fraction of what `JSONDecoder`'s Codable machinery spends on it.
///
/// Every method answers nil or false on anything unexpected and never traps: the caller then
/// falls back to `JSONDecoder`, which decides and words the error. So the reader may be
/// stricter than `JSONDecoder` (it refuses a trailing comma, a byte order mark, a lone
/// surrogate, invalid UTF-8 or a control character even in a value it skips, an integer
/// written `7.0`, nesting past `maximumDepth`) but must never accept what `JSONDecoder`
/// refuses, nor read a value differently.
///
/// The bytes are borrowed: a reader lives only inside `JSONReader.read(_:_:)` and must not be
/// kept past it. Not thread-safe; one reader per task.
package struct JSONReader {
    /// Deep enough for every result shape (envelope, result, array, message: 4); shallow enough
    /// that skipping an unknown value, which recurses, cannot exhaust the stack.
    package static let maximumDepth = 64

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Objects and arrays open around the current position.
    var depth = 0
    /// Where strings with escapes are unescaped; kept so that only the final String allocates.
    var scratch: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Reads a whole document with `body`: its value, or nil when `body` fails or anything but
    /// whitespace follows the value.
    package static func read<Value>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (inout JSONReader) -> Value?
    ) -> Value? {
        var reader = JSONReader(bytes)
        guard let value = body(&reader) else { return nil }
        reader.skipWhitespace()
        return reader.index == bytes.count ? value : nil
    }

    package static func read<Value>(
        _ bytes: [UInt8], _ body: (inout JSONReader) -> Value?
    ) -> Value? {
        bytes.withUnsafeBufferPointer { read($0, body) }
    }

    package static func read<Value>(
        _ bytes: UnsafeRawBufferPointer, _ body: (inout JSONReader) -> Value?
    ) -> Value? {
        bytes.withMemoryRebound(to: UInt8.self) { read($0, body) }
    }

    // MARK: Bytes

    /// The byte at the current position, if any. Every read goes through a bounds check like
    /// this one: the buffer's own subscript checks nothing in release builds.
    var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` if it comes next (no whitespace skipped).
    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func consume(literal: StaticString) -> Bool {
        guard JSONSyntax.holds(literal, UnsafeRawBufferPointer(bytes), at: index) else {
            return false
        }
        index += literal.utf8CodeUnitCount
        return true
    }

    // MARK: Literals and integers

    /// Consumes `null` if it comes next; otherwise consumes only whitespace.
    package mutating func readNull() -> Bool {
        skipWhitespace()
        return consume(literal: "null")
    }

    package mutating func readBool() -> Bool? {
        skipWhitespace()
        if consume(literal: "true") { return true }
        if consume(literal: "false") { return false }
        return nil
    }

    package mutating func readUInt64() -> UInt64? {
        skipWhitespace()
        return readMagnitude()
    }

    package mutating func readInt() -> Int? {
        skipWhitespace()
        let negative = consume(UInt8(ascii: "-"))
        guard let magnitude = readMagnitude() else { return nil }
        guard negative else { return Int(exactly: magnitude) }
        if magnitude == UInt64(Int.max) + 1 { return Int.min }
        return Int(exactly: magnitude).map { -$0 }
    }

    /// The digits of a non-negative integer. Nil for no digit, a leading zero, overflow, and
    /// for a fraction or exponent: `JSONDecoder` turns `7.0` or `7e0` into an integer, and
    /// those never come from our encoder, so they are left to it.
    private mutating func readMagnitude() -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflowed, !carried else { return nil }
            value = sum
            index += 1
        }
        let count = index - start
        guard count > 0, count == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        switch next {
        case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
        default: return value
        }
    }

    /// Any JSON number as a `Double`, rounded as `Double(String)` rounds it (correctly, like
    /// `JSONDecoder`). Nil for what is not a JSON number, and for a number whose magnitude is
    /// past the largest `Double` or so small that it rounds to zero: `JSONDecoder` refuses
    /// both rather than read infinity or 0. (`send`'s `timeout` is the one such field on the
    /// fast path.)
    package mutating func readDouble() -> Double? {
        skipWhitespace()
        let start = index
        guard skipNumber() else { return nil }
        let number = UnsafeBufferPointer(rebasing: bytes[start..<index])
        guard let value = Double(String(decoding: number, as: UTF8.self)), value.isFinite else {
            return nil
        }
        if value == 0 {
            // Zero only when every digit before the exponent is.
            let mantissa = number.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
            let nonZeroDigits = UInt8(ascii: "1")...UInt8(ascii: "9")
            guard !mantissa.contains(where: nonZeroDigits.contains) else { return nil }
        }
        return value
    }

    /// Validates any JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    mutating func skipNumber() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) {
            guard skipDigits() else { return false }
        }
        if consume(UInt8(ascii: ".")) {
            guard skipDigits() else { return false }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard skipDigits() else { return false }
        }
        return true
    }

    /// One or more digits.
    private mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index > start
    }

    /// Skips a literal (`true`, `false`, `null`).
    mutating func skipLiteral() -> Bool {
        consume(literal: "true") || consume(literal: "false") || consume(literal: "null")
    }
}
