/// Bounds-checked big-endian reading and writing for the application codec. Every read
/// checks the remaining length first and throws instead of trapping: the bytes come from the
/// network.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset == bytes.count }

    mutating func u8() throws(AppCodecError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(AppCodecError) -> UInt16 {
        UInt16(truncatingIfNeeded: try integer(byteCount: 2))
    }

    mutating func u32() throws(AppCodecError) -> UInt32 {
        UInt32(truncatingIfNeeded: try integer(byteCount: 4))
    }

    mutating func u64() throws(AppCodecError) -> UInt64 {
        try integer(byteCount: 8)
    }

    mutating func i64() throws(AppCodecError) -> Int64 {
        Int64(bitPattern: try u64())
    }

    mutating func raw(_ count: Int) throws(AppCodecError) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw .truncated }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// `u32 length ‖ bytes`; the length is checked against `limit` and the remaining bytes
    /// before anything is sliced.
    mutating func lengthPrefixed(limit: Int) throws(AppCodecError) -> ArraySlice<UInt8> {
        let length = Int(try u32())
        guard length <= remaining else { throw .truncated }
        guard length <= limit else { throw .fieldTooLong(length) }
        return try raw(length)
    }

    /// A `str` field that must be valid UTF-8 (any failure closes the session, §9.1).
    mutating func string(limit: Int) throws(AppCodecError) -> String {
        let slice = try lengthPrefixed(limit: limit)
        guard let text = String(validating: slice, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    private mutating func integer(byteCount: Int) throws(AppCodecError) -> UInt64 {
        guard remaining >= byteCount else { throw .truncated }
        var value: UInt64 = 0
        for index in offset..<offset + byteCount {
            value = value << 8 | UInt64(bytes[index])
        }
        offset += byteCount
        return value
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        var bigEndian = value.bigEndian
        Swift.withUnsafeBytes(of: &bigEndian) { append(contentsOf: $0) }
    }

    /// `u32 length ‖ UTF-8 bytes`.
    mutating func appendString(_ text: String) {
        let utf8 = text.utf8
        appendBigEndian(UInt32(truncatingIfNeeded: utf8.count))
        append(contentsOf: utf8)
    }
}

/// Why an application message could not be decoded. Any of these closes the session with
/// CLOSE(PROTOCOL_ERROR), except a bad MSG text, which is REJECTed instead (§9.4).
public enum AppCodecError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case truncated
    case trailingBytes(Int)
    case fieldTooLong(Int)
    case invalidUTF8
    case invalidPresence(UInt8)
    case invalidTyping(UInt8)
    case invalidFlags(UInt8)
    case tooManyMembers(Int)
    case invalidMemberKey
    case duplicateMember
    case blankGroupName

    public var description: String {
        switch self {
        case .empty: "empty application message"
        case .truncated: "application message truncated (a length runs past its end)"
        case .trailingBytes(let count): "\(count) unexpected bytes after the application message"
        case .fieldTooLong(let length): "a field of \(length) bytes exceeds its limit"
        case .invalidUTF8: "a text field is not valid UTF-8"
        case .invalidPresence(let value): "unknown presence value \(value)"
        case .invalidTyping(let value): "unknown TYPING state \(value)"
        case .invalidFlags(let flags): "unknown MSG flags 0x\(String(flags, radix: 16))"
        case .tooManyMembers(let count):
            "a GROUP of \(count) members exceeds \(Limits.maxGroupMembers)"
        case .invalidMemberKey: "a GROUP member key is not a canonical X25519 key"
        case .duplicateMember: "a GROUP lists a member twice"
        case .blankGroupName: "a GROUP has a blank name"
        }
    }
}
