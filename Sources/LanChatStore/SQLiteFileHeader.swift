/// The first 100 bytes of a SQLite file, as far as the page salvage needs them
/// (https://www.sqlite.org/fileformat2.html#the_database_header).
struct SQLiteFileHeader: Equatable {
    static let magic = Array("SQLite format 3\0".utf8)

    /// Bytes per page: 512 to 65 536, a power of two.
    let pageSize: Int
    /// Bytes at the end of each page that hold no b-tree data (an extension's).
    let reservedBytes: Int
    /// The page count the header states, when it is current (its "version valid for" number
    /// equals the change counter); nil when it is not, and SQLite goes by the file's size.
    let statedPageCount: Int?
    /// The first freelist trunk page (0: none) and how many pages the freelist holds.
    let firstFreelistTrunk: Int
    let freelistPages: Int
    /// 1 UTF-8, 2 UTF-16le, 3 UTF-16be.
    let textEncoding: Int

    /// The bytes of a page that b-tree cells may use.
    var usableSize: Int { pageSize - reservedBytes }

    /// nil when `bytes` do not begin with a SQLite header of sane values.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 100, Array(bytes[0..<16]) == Self.magic,
            let rawPageSize = SQLiteBytes.u16(bytes, at: 16),
            let changeCounter = SQLiteBytes.u32(bytes, at: 24),
            let stated = SQLiteBytes.u32(bytes, at: 28),
            let trunk = SQLiteBytes.u32(bytes, at: 32),
            let free = SQLiteBytes.u32(bytes, at: 36),
            let encoding = SQLiteBytes.u32(bytes, at: 56),
            let validFor = SQLiteBytes.u32(bytes, at: 92)
        else { return nil }
        // 1 stands for 65 536, which does not fit in two bytes.
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return nil }
        self.pageSize = pageSize
        reservedBytes = Int(bytes[20])
        // SQLite refuses a usable size under 480: the cell size limits assume it.
        guard pageSize - reservedBytes >= 480 else { return nil }
        statedPageCount = stated > 0 && validFor == changeCounter ? stated : nil
        firstFreelistTrunk = trunk
        freelistPages = free
        textEncoding = encoding
    }
}
