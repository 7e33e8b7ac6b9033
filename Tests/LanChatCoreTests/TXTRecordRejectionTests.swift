import LanChatCore
import Testing

/// PROTOCOL.md §7.3 item 44: every malformed TXT record is dropped with a reason, never
/// accepted and never a crash.
@Suite struct TXTRecordRejectionTests {
    static func parse(_ strings: [String]) -> TXTRecordRejection? {
        switch TXTRecord.parse(strings) {
        case .success: nil
        case .failure(let rejection): rejection
        }
    }

    static func record(id: String) -> [String] {
        ["txtvers=1", "v=1", "id=\(id)", "status=avail", "msg="]
    }

    @Test func missingIDIsDropped() {
        #expect(Self.parse(["txtvers=1", "v=1", "status=avail"]) == .missingID)
    }

    @Test func bareOrEmptyIDIsDropped() {
        #expect(Self.parse(Self.record(id: "")) == .wrongKeyLength(byteCount: 0))
        #expect(Self.parse(["txtvers=1", "v=1", "id"]) == .wrongKeyLength(byteCount: 0))
    }

    @Test(arguments: [
        String(repeating: "A", count: 51) + "1",  // '1' is not in the alphabet
        String(repeating: "A", count: 51) + "=",
        String(repeating: "A", count: 50) + " A",
        String(repeating: "A", count: 51) + "B",  // non-zero trailing bits
        String(repeating: "A", count: 51),  // 255 bits: a redundant character
        String(repeating: "A", count: 51) + "é",
    ])
    func badBase32IsDropped(id: String) {
        #expect(Self.parse(Self.record(id: id)) == .invalidBase32)
    }

    @Test(arguments: [31, 33, 1, 64])
    func keysOfTheWrongLengthAreDropped(byteCount: Int) {
        let id = Base32.encode([UInt8](repeating: 0x11, count: byteCount))
        #expect(Self.parse(Self.record(id: id)) == .wrongKeyLength(byteCount: byteCount))
    }

    @Test func nonCanonicalKeysAreDropped() {
        let highBit = [UInt8](repeating: 0x01, count: 31) + [0x80]
        let fieldPrime = [0xED] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
        let aboveFieldPrime = [0xEE] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
        for bytes in [highBit, fieldPrime, aboveFieldPrime] {
            #expect(Self.parse(Self.record(id: Base32.encode(bytes))) == .nonCanonicalKey)
        }
        let belowFieldPrime = [0xEC] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
        #expect(Self.parse(Self.record(id: Base32.encode(belowFieldPrime))) == nil)
    }

    @Test func duplicateKeysAreDropped() {
        let id = Base32.encode([UInt8](repeating: 0x22, count: 32))
        #expect(Self.parse(Self.record(id: id) + ["id=\(id)"]) == .duplicateKey("id"))
        #expect(Self.parse(Self.record(id: id) + ["MSG=again"]) == .duplicateKey("msg"))
        #expect(Self.parse(Self.record(id: id) + ["x=1", "x=2"]) == .duplicateKey("x"))
        #expect(Self.parse(Self.record(id: id) + ["status"]) == .duplicateKey("status"))
    }

    @Test func oversizedValuesAreDropped() {
        let id = Base32.encode([UInt8](repeating: 0x22, count: 32))
        let big = String(repeating: "m", count: 256)
        #expect(
            Self.parse(Self.record(id: id) + ["note=\(big)"])
                == .valueTooLong(key: "note", byteCount: 256))
        #expect(
            Self.parse(["txtvers=1", "v=1", "id=\(id)", "msg=\(big)"])
                == .valueTooLong(key: "msg", byteCount: 256))
        let justFits = String(repeating: "m", count: 255)
        #expect(Self.parse(Self.record(id: id) + ["note=\(justFits)"]) == nil)
    }

    @Test func anOversizedIDIsDroppedBeforeItIsDecoded() {
        let huge = String(repeating: "A", count: 4096)
        #expect(Self.parse(Self.record(id: huge)) == .valueTooLong(key: "id", byteCount: 4096))
    }

    @Test(arguments: ["txtvers=2", "txtvers=0", "txtvers=01", "txtvers=", "txtvers", "txtvers=one"])
    func otherFormatVersionsAreDropped(entry: String) {
        let id = Base32.encode([UInt8](repeating: 0x22, count: 32))
        let strings = [entry, "v=1", "id=\(id)"]
        #expect(Self.parse(strings)?.isFormatVersionRejection == true)
    }

    @Test func missingFormatVersionIsDropped() {
        let id = Base32.encode([UInt8](repeating: 0x22, count: 32))
        #expect(Self.parse(["v=1", "id=\(id)"]) == .missingFormatVersion)
    }

    @Test(arguments: ["v=0", "v=256", "v=+1", "v=1.0", "v=", "v", "v=0001", "v=x"])
    func badWireVersionsAreDropped(entry: String) {
        let id = Base32.encode([UInt8](repeating: 0x22, count: 32))
        let strings = ["txtvers=1", entry, "id=\(id)"]
        #expect(
            Self.parse(strings) == .invalidWireVersion(String(entry.dropFirst(2))).orBare(entry))
    }

    @Test func missingWireVersionIsDropped() {
        let id = Base32.encode([UInt8](repeating: 0x22, count: 32))
        #expect(Self.parse(["txtvers=1", "id=\(id)"]) == .missingWireVersion)
    }

    @Test func reasonsNeverCarryAWholeValue() {
        let long = String(repeating: "Z", count: 200)
        let rejection = Self.parse(["txtvers=1", "v=\(long)"])
        #expect(rejection?.description.count ?? 0 < 40)
    }
}

extension TXTRecordRejection {
    fileprivate var isFormatVersionRejection: Bool {
        if case .unsupportedFormatVersion = self { return true }
        return false
    }

    /// The expected reason for a `v` entry: a bare key renders as "(no value)".
    fileprivate func orBare(_ entry: String) -> TXTRecordRejection {
        entry == "v" ? .invalidWireVersion("(no value)") : self
    }
}
