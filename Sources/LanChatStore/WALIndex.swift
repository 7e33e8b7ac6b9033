/// Where a `-wal` holds the newest committed copy of each page
/// (https://www.sqlite.org/fileformat2.html#the_write_ahead_log).
///
/// Why: a store left by a crash has transactions in its log that the main file does not
/// hold yet, and SQLite reads a page from the log when it is there. The page salvage must
/// see the same pages, or it would bring back rows the log has since changed or deleted.
///
/// A frame counts as SQLite's recovery counts it: its salts are the header's and its
/// checksum, carried on from the header through every frame before it, matches; frames after
/// the last valid commit frame (a transaction cut short) are left out.
struct WALIndex {
    static let headerSize = 32
    static let frameHeaderSize = 24

    /// For each page the log holds, the offset in the log of its newest committed copy.
    let pageOffsets: [Int: Int]
    /// The database's size in pages after the last committed transaction.
    let pageCount: Int

    /// nil when the log holds no committed transaction (or is no log for pages of
    /// `pageSize` bytes): then SQLite reads the main file alone.
    init?(_ log: ByteSource, pageSize: Int) {
        guard log.size >= Self.headerSize, let header = log.read(0, Self.headerSize),
            header.count == Self.headerSize,
            let magic = SQLiteBytes.u32(header, at: 0), magic & ~1 == 0x377F_0682,
            SQLiteBytes.u32(header, at: 8) == pageSize
        else { return nil }
        // The low bit of the magic number says the checksums' words are big-endian.
        let bigEndian = magic & 1 == 1
        var sums = Self.checksum(header[0..<24], bigEndian: bigEndian, from: (0, 0))
        guard SQLiteBytes.u32(header, at: 24) == Int(sums.0),
            SQLiteBytes.u32(header, at: 28) == Int(sums.1)
        else { return nil }
        let salts = header[16..<24]
        var committed: [Int: Int] = [:]
        var pending: [Int: Int] = [:]
        var pageCount = 0
        var offset = Self.headerSize
        let frameSize = Self.frameHeaderSize + pageSize
        while offset + frameSize <= log.size {
            guard let frame = log.read(offset, frameSize), frame.count == frameSize,
                frame[8..<16].elementsEqual(salts),
                let page = SQLiteBytes.u32(frame, at: 0), page > 0,
                let commitSize = SQLiteBytes.u32(frame, at: 4)
            else { break }
            sums = Self.checksum(frame[0..<8], bigEndian: bigEndian, from: sums)
            sums = Self.checksum(frame[Self.frameHeaderSize...], bigEndian: bigEndian, from: sums)
            guard SQLiteBytes.u32(frame, at: 16) == Int(sums.0),
                SQLiteBytes.u32(frame, at: 20) == Int(sums.1)
            else { break }
            pending[page] = offset + Self.frameHeaderSize
            if commitSize > 0 {
                committed.merge(pending) { _, newer in newer }
                pending = [:]
                pageCount = commitSize
            }
            offset += frameSize
        }
        guard pageCount > 0 else { return nil }
        pageOffsets = committed
        self.pageCount = pageCount
    }

    /// The log's checksum of `bytes` (a multiple of 8 long), carried on from `start`: two
    /// 32-bit sums over the bytes taken as pairs of words.
    static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, from start: (UInt32, UInt32))
        -> (UInt32, UInt32)
    {
        var (first, second) = start
        var index = bytes.startIndex
        func word(_ at: Int) -> UInt32 {
            let value =
                UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8
                | UInt32(bytes[at + 3])
            return bigEndian ? value : value.byteSwapped
        }
        while index + 8 <= bytes.endIndex {
            first = first &+ word(index) &+ second
            second = second &+ word(index + 4) &+ first
            index += 8
        }
        return (first, second)
    }
}
