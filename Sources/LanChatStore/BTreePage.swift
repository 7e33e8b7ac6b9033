/// One b-tree page of a SQLite file, read by hand
/// (https://www.sqlite.org/fileformat2.html#b_tree_pages) for the page salvage of
/// `--repair-store` (`PageSalvage`).
///
/// The page comes from a damaged file: a cell pointer outside the page, or a child page
/// number past the file's end, is dropped (and counted), not trusted; a page whose header
/// makes no sense is no page (nil).
struct BTreePage {
    enum Kind: UInt8 {
        case indexInterior = 0x02
        case tableInterior = 0x05
        case indexLeaf = 0x0A
        case tableLeaf = 0x0D
    }

    let number: Int
    let kind: Kind
    let bytes: [UInt8]
    let usableSize: Int
    /// Where each cell starts, from the page's first byte (also on page 1).
    let cellOffsets: [Int]
    /// Cell pointers that pointed outside the page's cell area.
    let droppedCells: Int
    /// An interior page's last child, the one to the right of every cell's.
    let rightmostChild: Int?

    /// Where a page's b-tree header starts: page 1 begins with the file header.
    static func headerOffset(ofPage number: Int) -> Int { number == 1 ? 100 : 0 }

    /// The kind page `number` says it is, without reading further.
    static func kind(of bytes: [UInt8], page number: Int) -> Kind? {
        let offset = headerOffset(ofPage: number)
        return offset < bytes.count ? Kind(rawValue: bytes[offset]) : nil
    }

    init?(number: Int, bytes: [UInt8], usableSize: Int) {
        let header = Self.headerOffset(ofPage: number)
        guard usableSize <= bytes.count, let kind = Self.kind(of: bytes, page: number),
            let cellCount = SQLiteBytes.u16(bytes, at: header + 3)
        else { return nil }
        let isInterior = kind == .indexInterior || kind == .tableInterior
        let pointers = header + (isInterior ? 12 : 8)
        let cellArea = pointers + 2 * cellCount
        guard cellArea <= usableSize else { return nil }
        self.number = number
        self.kind = kind
        self.bytes = bytes
        self.usableSize = usableSize
        var offsets: [Int] = []
        var dropped = 0
        for index in 0..<cellCount {
            // Present: cellArea is within the page.
            let offset = SQLiteBytes.u16(bytes, at: pointers + 2 * index) ?? 0
            if offset >= cellArea && offset < usableSize {
                offsets.append(offset)
            } else {
                dropped += 1
            }
        }
        cellOffsets = offsets
        droppedCells = dropped
        rightmostChild = isInterior ? SQLiteBytes.u32(bytes, at: header + 8) : nil
    }

    /// A table interior page's children, left to right (the rightmost last); page numbers
    /// outside `1...pageCount` are left out.
    func tableChildren(pageCount: Int) -> [Int] {
        guard kind == .tableInterior else { return [] }
        let children =
            cellOffsets.compactMap { SQLiteBytes.u32(bytes, at: $0) } + [rightmostChild ?? 0]
        return children.filter { $0 >= 1 && $0 <= pageCount }
    }

    /// A cell of a table leaf: its rowid, and its payload as far as it lies on this page.
    struct TableLeafCell: Equatable {
        let rowid: Int64
        /// The whole payload's size, this page's part and the overflow pages'.
        let payloadSize: Int
        let localPayload: [UInt8]
        /// The first overflow page, when the payload does not fit on this page.
        let firstOverflowPage: Int?
    }

    /// The table leaf cell at `offset`; nil when it does not fit in the page.
    func tableLeafCell(at offset: Int) -> TableLeafCell? {
        guard kind == .tableLeaf,
            let size = SQLiteBytes.varint(bytes, at: offset),
            let rowid = SQLiteBytes.varint(bytes, at: offset + size.length),
            size.value <= UInt64(Int32.max)
        else { return nil }
        let payloadSize = Int(size.value)
        let start = offset + size.length + rowid.length
        let local = Self.localPayloadSize(payloadSize, usableSize: usableSize)
        let overflows = local < payloadSize
        guard start + local + (overflows ? 4 : 0) <= usableSize else { return nil }
        var overflow: Int?
        if overflows {
            guard let page = SQLiteBytes.u32(bytes, at: start + local), page > 0 else {
                return nil
            }
            overflow = page
        }
        return TableLeafCell(
            rowid: Int64(bitPattern: rowid.value), payloadSize: payloadSize,
            localPayload: Array(bytes[start..<start + local]), firstOverflowPage: overflow)
    }

    /// How much of a table leaf cell's payload of `payload` bytes is kept on its page, the
    /// rest going to overflow pages (the file format's rule, with U the usable size:
    /// X = U−35, M = ((U−12)·32/255)−23, K = M + ((P−M) mod (U−4)); P if P ≤ X, else K if
    /// K ≤ X, else M).
    static func localPayloadSize(_ payload: Int, usableSize: Int) -> Int {
        let most = usableSize - 35
        guard payload > most else { return payload }
        let least = (usableSize - 12) * 32 / 255 - 23
        let fitted = least + (payload - least) % (usableSize - 4)
        return fitted <= most ? fitted : least
    }
}
