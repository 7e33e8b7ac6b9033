import LanChatCore
import LanChatTestSupport
import Testing

/// Property tests of the TXT parser (PROTOCOL.md §7.5): random input never traps, and any
/// record it accepts carries a canonical key and a valid version.
@Suite struct TXTRecordPropertyTests {
    static let validRecord: [[UInt8]] = {
        let id = Base32.encode([UInt8](repeating: 0x33, count: 32))
        return ["txtvers=1", "v=1", "id=\(id)", "status=away", "msg=hi"].map { Array($0.utf8) }
    }()

    /// Accepted records must satisfy §3.3 whatever the input was.
    static func checkInvariants(of strings: [[UInt8]]) {
        guard case .success(let announcement) = TXTRecord.parse(strings) else { return }
        #expect(PeerKey.isCanonical(announcement.key.bytes))
        #expect(announcement.maxVersion >= 1)
        #expect(announcement.statusText.utf8.count <= TXTRecord.maxStatusTextBytes)
    }

    @Test(arguments: 0..<8)
    func randomByteStringsNeverCrash(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            let count = Int.random(in: 0...8, using: &random)
            let strings = (0..<count).map { _ in
                (0..<Int.random(in: 0...300, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            }
            Self.checkInvariants(of: strings)
        }
    }

    @Test(arguments: 0..<8)
    func mutatedValidRecordsNeverCrash(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var accepted = 0
        for _ in 0..<500 {
            var strings = Self.validRecord
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<strings.count, using: &random)
                guard !strings[index].isEmpty else { continue }
                let position = Int.random(in: 0..<strings[index].count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: strings[index][position] = UInt8.random(in: 0...255, using: &random)
                case 1: strings[index].remove(at: position)
                default: strings.append(strings[index])
                }
            }
            if case .success = TXTRecord.parse(strings) { accepted += 1 }
            Self.checkInvariants(of: strings)
        }
        // Mutating `status`/`msg` keeps a record valid, so some must survive: the parser is
        // strict, not rejecting everything.
        #expect(accepted > 0)
    }

    @Test func randomKeysRoundTripWhenCanonical() {
        var random = SeededGenerator(seed: 42)
        for _ in 0..<1_000 {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            let strings = ["txtvers=1", "v=1", "id=\(Base32.encode(bytes))"]
            switch TXTRecord.parse(strings) {
            case .success(let announcement):
                #expect(announcement.key.bytes == bytes)
            case .failure(let rejection):
                #expect(rejection == .nonCanonicalKey)
                #expect(!PeerKey.isCanonical(bytes))
            }
        }
    }
}
