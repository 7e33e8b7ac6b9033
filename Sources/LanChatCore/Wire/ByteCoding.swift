/// Big-endian integer helpers for the wire codecs. Every read is bounds-checked and returns
/// nil instead of trapping, because the bytes come from the network.
package enum ByteCoding {
    package static func appendUInt16(_ value: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    package static func appendUInt64(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// Reads a u16 at `offset` of `bytes` (any index base), or nil past the end.
    package static func readUInt16(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16? {
        let start = bytes.startIndex + offset
        guard offset >= 0, start + 2 <= bytes.endIndex else { return nil }
        return UInt16(bytes[start]) << 8 | UInt16(bytes[start + 1])
    }

    package static func readUInt64(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt64? {
        let start = bytes.startIndex + offset
        guard offset >= 0, start + 8 <= bytes.endIndex else { return nil }
        var value: UInt64 = 0
        for index in start..<(start + 8) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    /// The 2-byte length prefix of a frame whose body is `length` bytes.
    package static func lengthPrefix(_ length: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
    }
}
