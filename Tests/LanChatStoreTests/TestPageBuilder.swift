@testable import LanChatStore

/// Hand-made SQLite pages for the page salvage's tests, written from the file format
/// document (https://www.sqlite.org/fileformat2.html), not from the decoder they test.
enum TestPageBuilder {
    /// A varint: seven bits a byte, high bits first, the high bit set on all but the last;
    /// a value of more than 56 bits takes nine bytes, the ninth holding eight bits.
    static func varint(_ value: UInt64) -> [UInt8] {
        if value >> 56 != 0 {
            var bytes = [UInt8(value & 0xFF)]
            var rest = value >> 8
            for _ in 0..<8 {
                bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            return bytes
        }
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }

    static func bigEndian(_ value: Int, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// A record: header (its size, then each value's serial type), then the values.
    static func record(_ values: [SalvagedValue]) -> [UInt8] {
        var types: [UInt8] = []
        var body: [UInt8] = []
        for value in values {
            switch value {
            case .null: types += varint(0)
            case .integer(0): types += varint(8)
            case .integer(1): types += varint(9)
            case .integer(let number):
                let (type, width): (UInt64, Int) =
                    switch number {
                    case -128...127: (1, 1)
                    case -32_768...32_767: (2, 2)
                    case -8_388_608...8_388_607: (3, 3)
                    case -2_147_483_648...2_147_483_647: (4, 4)
                    case -140_737_488_355_328...140_737_488_355_327: (5, 6)
                    default: (6, 8)
                    }
                types += varint(type)
                body += bigEndian(Int(number), width: width)
            case .real(let number):
                types += varint(7)
                body += bigEndian(Int(Int64(bitPattern: number.bitPattern)), width: 8)
            case .text(let bytes):
                types += varint(UInt64(13 + 2 * bytes.count))
                body += bytes
            case .blob(let bytes):
                types += varint(UInt64(12 + 2 * bytes.count))
                body += bytes
            }
        }
        // The size counts its own varint.
        var headerSize = types.count + 1
        while types.count + varint(UInt64(headerSize)).count != headerSize {
            headerSize = types.count + varint(UInt64(headerSize)).count
        }
        return varint(UInt64(headerSize)) + types + body
    }

    static func text(_ string: String) -> SalvagedValue { .text(Array(string.utf8)) }

    /// A table leaf cell: payload size, rowid, the payload's first `local` bytes, then the
    /// first overflow page when there is one.
    static func tableLeafCell(rowid: Int64, payload: [UInt8], local: Int, overflow: Int?)
        -> [UInt8]
    {
        varint(UInt64(payload.count)) + varint(UInt64(bitPattern: rowid))
            + payload.prefix(local) + (overflow.map { bigEndian($0, width: 4) } ?? [])
    }

    /// A b-tree page of `size` bytes: `flag`, the cells packed at its end (last cell
    /// lowest, as SQLite fills a page), the rightmost child of an interior page. Page 1's
    /// header comes after the 100-byte file header, left as zeros here.
    static func page(
        number: Int, size: Int, flag: UInt8, cells: [[UInt8]], rightmost: Int? = nil
    ) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        let header = number == 1 ? 100 : 0
        var contentStart = size
        var pointers: [Int] = []
        for cell in cells {
            contentStart -= cell.count
            bytes.replaceSubrange(contentStart..<contentStart + cell.count, with: cell)
            pointers.append(contentStart)
        }
        bytes[header] = flag
        bytes.replaceSubrange(header + 3..<header + 5, with: bigEndian(cells.count, width: 2))
        bytes.replaceSubrange(header + 5..<header + 7, with: bigEndian(contentStart, width: 2))
        var pointerArray = header + 8
        if let rightmost {
            bytes.replaceSubrange(header + 8..<header + 12, with: bigEndian(rightmost, width: 4))
            pointerArray = header + 12
        }
        for (index, pointer) in pointers.enumerated() {
            let at = pointerArray + 2 * index
            bytes.replaceSubrange(at..<at + 2, with: bigEndian(pointer, width: 2))
        }
        return bytes
    }

    /// A table leaf page of rows whose payloads fit on it.
    static func tableLeaf(number: Int, size: Int, rows: [(Int64, [SalvagedValue])]) -> [UInt8] {
        page(
            number: number, size: size, flag: 0x0D,
            cells: rows.map { rowid, values in
                let payload = record(values)
                return tableLeafCell(
                    rowid: rowid, payload: payload, local: payload.count, overflow: nil)
            })
    }

    /// A table interior page: each child with the largest rowid under it, and the rightmost.
    static func tableInterior(number: Int, size: Int, children: [(Int, Int64)], rightmost: Int)
        -> [UInt8]
    {
        page(
            number: number, size: size, flag: 0x05,
            cells: children.map { child, key in bigEndian(child, width: 4) + varint(UInt64(key)) },
            rightmost: rightmost)
    }

    /// An overflow page: the next one's number (0 for the last), then content.
    static func overflow(size: Int, next: Int, content: ArraySlice<UInt8>) -> [UInt8] {
        let bytes = bigEndian(next, width: 4) + content
        return bytes + [UInt8](repeating: 0, count: size - bytes.count)
    }

    /// The file header of a UTF-8 file of `pages` pages of `size` bytes, its freelist
    /// starting at `freelistTrunk` with `freePages` pages; written into page 1's first 100
    /// bytes.
    static func withFileHeader(
        _ page1: [UInt8], size: Int, pages: Int, freelistTrunk: Int = 0, freePages: Int = 0
    ) -> [UInt8] {
        var bytes = page1
        var header = Array("SQLite format 3\0".utf8)
        header += bigEndian(size == 65_536 ? 1 : size, width: 2)
        header += [1, 1, 0, 64, 32, 32]  // versions, reserved bytes, payload fractions
        header += bigEndian(7, width: 4)  // change counter
        header += bigEndian(pages, width: 4)
        header += bigEndian(freelistTrunk, width: 4) + bigEndian(freePages, width: 4)
        header += bigEndian(1, width: 4) + bigEndian(4, width: 4)  // schema cookie, format
        header += [UInt8](repeating: 0, count: 8)  // cache size, vacuum root, then at 56:
        header += bigEndian(1, width: 4)  // UTF-8
        header += [UInt8](repeating: 0, count: 32)  // to 92
        header += bigEndian(7, width: 4)  // valid for change counter 7
        header += bigEndian(3_040_000, width: 4)
        bytes.replaceSubrange(0..<100, with: header)
        return bytes
    }
}
