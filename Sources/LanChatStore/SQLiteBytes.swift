/// Integers as SQLite's file format writes them (https://www.sqlite.org/fileformat2.html):
/// big-endian, fixed-width or varints. For the page salvage of `--repair-store`
/// (`PageSalvage`), which reads a file known to be damaged: every read is bounds-checked and
/// answers nil past the end, never traps.
enum SQLiteBytes {
    /// The big-endian unsigned integer of `width` (1 to 8) bytes at `offset`.
    static func unsigned(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64? {
        guard width >= 1, width <= 8, offset >= 0, offset <= bytes.count - width else {
            return nil
        }
        var value: UInt64 = 0
        for index in offset..<offset + width { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    static func u16(_ bytes: [UInt8], at offset: Int) -> Int? {
        unsigned(bytes, at: offset, width: 2).map(Int.init)
    }

    static func u32(_ bytes: [UInt8], at offset: Int) -> Int? {
        unsigned(bytes, at: offset, width: 4).map(Int.init)
    }

    /// The big-endian two's-complement integer of `width` bytes at `offset` (a record's
    /// integer values: 1, 2, 3, 4, 6 or 8 bytes).
    static func signed(_ bytes: [UInt8], at offset: Int, width: Int) -> Int64? {
        guard let raw = unsigned(bytes, at: offset, width: width) else { return nil }
        let unused = UInt64(64 - 8 * width)
        return Int64(bitPattern: raw << unused) >> unused
    }

    /// The varint at `offset` and how many bytes it takes: one to nine, seven bits from
    /// each of the first eight (the high bit says another follows), all eight of a ninth.
    static func varint(_ bytes: [UInt8], at offset: Int) -> (value: UInt64, length: Int)? {
        guard offset >= 0 else { return nil }
        var value: UInt64 = 0
        for index in 0..<9 {
            guard offset + index < bytes.count else { return nil }
            let byte = bytes[offset + index]
            if index == 8 { return (value << 8 | UInt64(byte), 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return nil
    }
}
