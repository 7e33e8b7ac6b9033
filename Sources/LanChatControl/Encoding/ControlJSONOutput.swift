/// A byte buffer that JSON is appended to exactly as `ControlJSON.encoder()` writes it:
/// compact, `/` unescaped, `"` `\` and control characters escaped the way Foundation does
/// (`\b \t \n \f \r`, otherwise `\u00xx` in lower-case hex), everything else as UTF-8.
///
/// Why it exists: answers that carry many messages (`send` with `texts`, `history`) spent
/// more time in `JSONEncoder` than in the store. Types write themselves through
/// `ControlJSONWritable`, keys in sorted order by hand; the tests hold every such type to
/// byte-for-byte equality with `JSONEncoder`, so the wire text has one definition.
public struct ControlJSONOutput: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: Structure

    public mutating func beginObject() { bytes.append(UInt8(ascii: "{")) }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { bytes.append(UInt8(ascii: "[")) }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")) }

    /// `"name":`, preceded by a comma unless it is the object's first key. Callers give
    /// the keys in sorted order (what `.sortedKeys` does); names are plain ASCII.
    public mutating func key(_ name: StaticString) {
        separateFromPrevious()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Before an array element: a comma unless it is the first.
    public mutating func separateFromPrevious() {
        guard let last = bytes.last, last != UInt8(ascii: "{"), last != UInt8(ascii: "[") else {
            return
        }
        bytes.append(UInt8(ascii: ","))
    }

    public mutating func array<Element>(
        _ elements: some Sequence<Element>, _ write: (inout ControlJSONOutput, Element) -> Void
    ) {
        beginArray()
        for element in elements {
            separateFromPrevious()
            write(&self, element)
        }
        endArray()
    }

    // MARK: Values

    public mutating func null() { append("null") }

    public mutating func bool(_ value: Bool) { append(value ? "true" : "false") }

    public mutating func integer(_ value: some FixedWidthInteger) {
        guard value != 0 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        // Digits of the magnitude, least significant first, then reversed in place.
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var rest = value.magnitude
        while rest != 0 {
            let (quotient, digit) = rest.quotientAndRemainder(dividingBy: 10)
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: digit))
            rest = quotient
        }
        bytes[start...].reverse()
    }

    /// A finite `Double` as `JSONEncoder` writes it: Swift's shortest round-trip form, without
    /// a trailing `.0` (`10`, `0.5`, `1e-07`). Writes nothing and returns false for infinity
    /// and NaN, which `JSONEncoder` refuses to encode.
    public mutating func double(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
        return true
    }

    /// A JSON-RPC id: its number, its string, or `null`.
    public mutating func rpcID(_ id: RPCID?) {
        switch id {
        case .number(let number): integer(number)
        case .string(let string): self.string(string)
        // What `JSONEncoder` writes for a `Decimal`: its description, digits without exponent.
        case .decimal(let decimal): bytes.append(contentsOf: decimal.description.utf8)
        case nil: null()
        }
    }

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Runs of bytes that need no escape are copied whole.
            var runStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(of: byte)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func timestamp(_ value: Timestamp) {
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: Timestamp.rfc3339Length))
        bytes.withUnsafeMutableBufferPointer { buffer in
            value.writeRFC3339(into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An optional written as its value or `null` (what `encode(_:forKey:)` does with nil).
    public mutating func optional<Value>(
        _ value: Value?, _ write: (inout ControlJSONOutput, Value) -> Void
    ) {
        if let value { write(&self, value) } else { null() }
    }

    public mutating func value(_ value: some ControlJSONWritable) {
        value.write(to: &self)
    }

    // MARK: Private

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendEscape(of byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        default:
            let hex: StaticString = "0123456789abcdef"
            append("u00")
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }
}
