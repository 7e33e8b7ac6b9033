/// The pages of a store file as SQLite would read them: each page's newest committed copy in
/// the `-wal` if the log has one (`WALIndex`), else the main file's. For the page salvage of
/// `--repair-store` (`PageSalvage`).
struct StorePages {
    /// The header as the newest page 1 has it.
    let header: SQLiteFileHeader
    /// Pages 1 through `count` make up the database (some may be missing from a truncated
    /// file: `page` answers nil for them).
    let count: Int
    private let main: ByteSource
    private let log: ByteSource?
    private let logged: [Int: Int]

    var pageSize: Int { header.pageSize }
    var usableSize: Int { header.usableSize }

    /// nil when the main file does not begin with a SQLite header (nothing tells the page
    /// size then).
    init?(main: ByteSource, log: ByteSource? = nil) {
        guard let first = main.read(0, 100), let fileHeader = SQLiteFileHeader(first) else {
            return nil
        }
        let index = log.flatMap { WALIndex($0, pageSize: fileHeader.pageSize) }
        self.main = main
        self.log = index == nil ? nil : log
        logged = index?.pageOffsets ?? [:]
        var header = fileHeader
        if let offset = logged[1], let newest = log?.read(offset, 100),
            let loggedHeader = SQLiteFileHeader(newest), loggedHeader.pageSize == header.pageSize
        {
            header = loggedHeader
        }
        self.header = header
        // As SQLite goes: the log's size after its last commit, else the header's when it is
        // current, else the file's.
        let filePages = main.size / header.pageSize
        // No page past what the file and the log hold can be read: a count beyond them (a
        // damaged header's, up to 2^32) would only be a long walk over nothing.
        let held = max(filePages + 1, logged.keys.max() ?? 0)
        count = min(index?.pageCount ?? header.statedPageCount ?? filePages, held)
    }

    /// The store file at `path` and its `-wal` if there is one; nil when the file cannot be
    /// read as a SQLite file.
    static func open(_ path: String) -> StorePages? {
        guard let main = ByteSource.file(path) else { return nil }
        return StorePages(main: main, log: ByteSource.file(path + "-wal"))
    }

    /// Page `number`'s bytes; nil when it is outside the database or cannot be read whole.
    /// A page the file ends inside is no page: SQLite would read it filled up with zeros,
    /// and a row it then holds could have part of its text silently zeroed.
    func page(_ number: Int) -> [UInt8]? {
        guard number >= 1, number <= count else { return nil }
        let bytes =
            if let offset = logged[number], let log {
                log.read(offset, pageSize)
            } else {
                main.read((number - 1) * pageSize, pageSize)
            }
        return bytes?.count == pageSize ? bytes : nil
    }
}
