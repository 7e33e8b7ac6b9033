import Testing

@testable import LanChatStore

/// The page decoder of the salvage (`SQLiteBytes`, `SQLiteFileHeader`, `BTreePage`,
/// `SQLiteRecord`) on hand-made pages (`TestPageBuilder`).
@Suite("Store repair: page decoder")
struct StoreRepairPageDecoderTests {
    typealias Build = TestPageBuilder

    @Test func varintsOfOneToNineBytes() {
        for value: UInt64 in [0, 1, 127, 128, 16_383, 16_384, 1 << 55, 1 << 56, UInt64.max] {
            let bytes = Build.varint(value)
            let read = SQLiteBytes.varint(bytes + [0xFF], at: 0)
            #expect(read?.value == value && read?.length == bytes.count, "\(value)")
        }
        #expect(Build.varint(UInt64.max).count == 9)
        // Cut short: no value rather than a guess.
        #expect(SQLiteBytes.varint([0x81, 0x80], at: 0) == nil)
        #expect(SQLiteBytes.varint([0x05], at: 1) == nil)
    }

    @Test func signedIntegersOfEveryWidth() {
        #expect(SQLiteBytes.signed([0xFF], at: 0, width: 1) == -1)
        #expect(SQLiteBytes.signed([0xFF, 0xFF, 0xFE], at: 0, width: 3) == -2)
        #expect(SQLiteBytes.signed([0x7F, 0xFF, 0xFF], at: 0, width: 3) == 8_388_607)
        #expect(SQLiteBytes.signed([0x80, 0, 0, 0, 0, 0], at: 0, width: 6) == -(1 << 47))
        #expect(SQLiteBytes.signed([0x01, 0x02], at: 1, width: 2) == nil)
    }

    @Test func headerPageSizeReservedBytesAndFreelist() throws {
        let page = Build.withFileHeader(
            [UInt8](repeating: 0, count: 512), size: 512, pages: 9, freelistTrunk: 4, freePages: 2)
        let header = try #require(SQLiteFileHeader(page))
        #expect(header.pageSize == 512 && header.usableSize == 512)
        #expect(header.statedPageCount == 9)
        #expect(header.firstFreelistTrunk == 4 && header.freelistPages == 2)
        #expect(header.textEncoding == 1)

        var big = Build.withFileHeader([UInt8](repeating: 0, count: 512), size: 65_536, pages: 1)
        big[20] = 32
        let bigHeader = try #require(SQLiteFileHeader(big))
        #expect(bigHeader.pageSize == 65_536 && bigHeader.usableSize == 65_504)

        // A header whose "valid for" number is not the change counter states no size.
        var stale = page
        stale[95] = 6
        #expect(try #require(SQLiteFileHeader(stale)).statedPageCount == nil)
        var notSQLite = page
        notSQLite[0] = 0x73
        #expect(SQLiteFileHeader(notSQLite) == nil)
        var oddSize = page
        oddSize[17] = 0x01
        #expect(SQLiteFileHeader(oddSize) == nil)
    }

    /// The file format's rule, worked by hand for 4096-byte pages (X = 4061, M = 489) and
    /// 512-byte ones (X = 477, M = 39).
    @Test func localPayloadFollowsTheFileFormat() {
        #expect(BTreePage.localPayloadSize(4_061, usableSize: 4_096) == 4_061)
        // K = 489 + (4062 − 489) mod 4092 = 4062 > X: M.
        #expect(BTreePage.localPayloadSize(4_062, usableSize: 4_096) == 489)
        // K = 489 + 4511 mod 4092 = 908 ≤ X: K.
        #expect(BTreePage.localPayloadSize(5_000, usableSize: 4_096) == 908)
        #expect(BTreePage.localPayloadSize(600, usableSize: 512) == 92)
        #expect(BTreePage.localPayloadSize(1_000, usableSize: 512) == 39)
    }

    @Test func recordOfEverySerialType() {
        let values: [SalvagedValue] = [
            .null, .integer(0), .integer(1), .integer(-5), .integer(300), .integer(-70_000),
            .integer(2_000_000_000), .integer(1 << 40), .integer(Int64.min), .real(-2.5),
            Build.text("héllo"), .blob([0, 1, 2]), .text([]), .blob([]),
        ]
        #expect(SQLiteRecord.decode(Build.record(values)) == values)
        // A long header: its size takes a varint of two bytes.
        let many = [SalvagedValue](repeating: .integer(7), count: 200)
        #expect(SQLiteRecord.decode(Build.record(many)) == many)
    }

    @Test func aRecordThatDoesNotFillItsPayloadExactlyIsNoRecord() {
        let record = Build.record([.integer(300), Build.text("abc")])
        #expect(SQLiteRecord.decode(record + [0]) == nil)
        #expect(SQLiteRecord.decode(Array(record.dropLast())) == nil)
        // Serial types 10 and 11 are reserved.
        #expect(SQLiteRecord.decode([2, 10]) == nil)
        #expect(SQLiteRecord.decode([2, 11]) == nil)
        // A header size past the payload.
        #expect(SQLiteRecord.decode([9, 1, 1]) == nil)
        #expect(SQLiteRecord.decode([]) == nil)
    }

    @Test func aTableLeafsCellsAndRowids() throws {
        let rows: [(Int64, [SalvagedValue])] = [
            (1, [.null, Build.text("first"), .integer(10)]),
            (1 << 40, [.null, Build.text("second"), .null]),
        ]
        for number in [1, 2] {
            let bytes = Build.tableLeaf(number: number, size: 512, rows: rows)
            let page = try #require(BTreePage(number: number, bytes: bytes, usableSize: 512))
            #expect(page.kind == .tableLeaf && page.droppedCells == 0)
            let cells = page.cellOffsets.compactMap { page.tableLeafCell(at: $0) }
            #expect(cells.map(\.rowid) == rows.map(\.0))
            #expect(cells.map { SQLiteRecord.decode($0.localPayload) } == rows.map(\.1))
            #expect(cells.allSatisfy { $0.firstOverflowPage == nil })
        }
    }

    @Test func aCellPointerOutsideThePageIsDropped() throws {
        var bytes = Build.tableLeaf(
            number: 2, size: 512, rows: [(1, [.integer(5)]), (2, [.integer(6)])])
        bytes.replaceSubrange(8..<10, with: Build.bigEndian(600, width: 2))
        let page = try #require(BTreePage(number: 2, bytes: bytes, usableSize: 512))
        #expect(page.cellOffsets.count == 1 && page.droppedCells == 1)
        // A cell count whose pointers cannot fit: no page.
        bytes.replaceSubrange(3..<5, with: Build.bigEndian(300, width: 2))
        #expect(BTreePage(number: 2, bytes: bytes, usableSize: 512) == nil)
        #expect(
            BTreePage(number: 2, bytes: [UInt8](repeating: 0, count: 512), usableSize: 512) == nil)
    }

    @Test func anInteriorPagesChildren() throws {
        let bytes = Build.tableInterior(
            number: 3, size: 512, children: [(4, 10), (5, 20), (900, 30)], rightmost: 6)
        let page = try #require(BTreePage(number: 3, bytes: bytes, usableSize: 512))
        #expect(page.kind == .tableInterior && page.rightmostChild == 6)
        // Page 900 is past the file's end.
        #expect(page.tableChildren(pageCount: 10) == [4, 5, 6])
    }

    /// A payload of 1000 bytes on 512-byte pages: 39 on the leaf, 508 on each of two
    /// overflow pages, the last partly.
    @Test func aPayloadOverTwoOverflowPages() throws {
        let text = Build.text(String(repeating: "abcdefghij", count: 99) + "abcdef")
        let payload = Build.record([.null, text])
        #expect(payload.count == 1_000)
        let local = BTreePage.localPayloadSize(payload.count, usableSize: 512)
        let leaf = Build.page(
            number: 2, size: 512, flag: 0x0D,
            cells: [Build.tableLeafCell(rowid: 7, payload: payload, local: local, overflow: 3)])
        let rest = payload[local...]
        let first = Build.overflow(size: 512, next: 4, content: rest.prefix(508))
        let second = Build.overflow(size: 512, next: 0, content: rest.dropFirst(508))
        let page1 = Build.withFileHeader(
            Build.tableLeaf(number: 1, size: 512, rows: []), size: 512, pages: 4)
        let file = page1 + leaf + first + second
        let pages = try #require(StorePages(main: ByteSource(file)))
        let salvage = PageSalvage(pages: pages)
        #expect(salvage.rows(on: 2) == [PageSalvage.Row(rowid: 7, values: [.null, text])])

        // A chain that leads out of the file loses the row.
        let astray = Build.overflow(size: 512, next: 9, content: rest.prefix(508))
        let cut = page1 + leaf + astray + second
        let broken = PageSalvage(pages: try #require(StorePages(main: ByteSource(cut))))
        #expect(broken.rows(on: 2).isEmpty)
    }
}
