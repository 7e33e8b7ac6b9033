/// A result the client can read with `JSONReader` instead of `JSONDecoder`, for the answers
/// that carry many messages (`send`, `history`): Codable's per-key machinery dominated the
/// client's time on a 1 000-message answer.
///
/// A conformance must give exactly the value the type's `Decodable` gives, or nil: unknown
/// keys skipped, optional keys missing or `null` read as nil, enums by raw value, integers in
/// range, and nil for anything else (a wrong type, a missing key, a duplicate key), so that
/// the caller falls back to `JSONDecoder`, which decides and explains.
package protocol FastJSONDecodable {
    /// Reads one value at the reader's position (leading whitespace allowed).
    init?(json reader: inout JSONReader)
}

extension FastJSONDecodable {
    /// Reads a whole document holding one value.
    package init?(json bytes: [UInt8]) {
        guard let value = JSONReader.read(bytes, { Self(json: &$0) }) else { return nil }
        self = value
    }
}

extension JSONReader {
    package mutating func read<Value: FastJSONDecodable>(_ type: Value.Type) -> Value? {
        Value(json: &self)
    }

    /// An enum by its raw value, as `Decodable` reads a `String`-backed enum.
    package mutating func readEnum<Value: RawRepresentable>(_ type: Value.Type) -> Value?
    where Value.RawValue == String {
        readString().flatMap(Value.init(rawValue:))
    }

    /// Through `Timestamp(rfc3339:)`, as `Timestamp.init(from:)` does.
    package mutating func readTimestamp() -> Timestamp? {
        readString().flatMap(Timestamp.init(rfc3339:))
    }
}
