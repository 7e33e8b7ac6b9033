import LanChatCore
import Testing

/// The TXT record codec of PROTOCOL.md §3.3 and §10, including every malformed-record case of
/// §7.3 item 44.
@Suite struct TXTRecordTests {
    /// A canonical key: 32 bytes with bit 255 clear.
    static let key = PeerKey(bytes: (0..<32).map { UInt8($0 * 7 % 128) })
    /// Its id, the 52-character base32 text.
    static var id: String { key?.id ?? "" }

    static func advertisement(status: AnnouncedStatus = .away, text: String = "at lunch")
        throws -> Advertisement
    {
        Advertisement(
            instanceName: "alice@deskpro (3EBM-VERF)", port: 4711, key: try #require(key),
            status: status, statusText: text)
    }

    static func record(replacing key: String? = nil, with entry: String? = nil) -> [String] {
        var strings = ["txtvers=1", "v=1", "id=\(id)", "status=busy", "msg=hello"]
        if let key {
            strings.removeAll { $0.hasPrefix("\(key)=") || $0 == key }
        }
        if let entry { strings.append(entry) }
        return strings
    }

    @Test func encodesTheFiveKeysInOrder() throws {
        let strings = TXTRecord.encode(try Self.advertisement())
        #expect(strings == ["txtvers=1", "v=1", "id=\(Self.id)", "status=away", "msg=at lunch"])
    }

    @Test(arguments: AnnouncedStatus.allCases)
    func roundTripsEveryStatus(status: AnnouncedStatus) throws {
        let advertisement = try Self.advertisement(status: status, text: "Grüße, 🙂")
        let parsed = try TXTRecord.parse(TXTRecord.encode(advertisement)).get()
        #expect(
            parsed
                == PeerAnnouncement(
                    key: advertisement.key, maxVersion: 1, status: status,
                    statusText: "Grüße, 🙂"))
    }

    @Test func encodingCutsLongStatusTextAtACharacterBoundary() throws {
        let text = String(repeating: "é", count: 100)  // 200 bytes
        let strings = TXTRecord.encode(try Self.advertisement(text: text))
        let message = try #require(strings.last)
        #expect(message == "msg=" + String(repeating: "é", count: 64))
        #expect(
            TXTRecord.parse(strings).map(\.statusText)
                == .success(String(repeating: "é", count: 64)))
    }

    @Test func acceptsLowerCaseIDAndKeysInAnyCase() throws {
        let strings = ["TXTVERS=1", "V=1", "Id=\(Self.id.lowercased())"]
        let parsed = try TXTRecord.parse(strings).get()
        #expect(parsed.key == Self.key)
    }

    @Test func statusAndMessageAreOptionalAndDisplayOnly() throws {
        let minimal = try TXTRecord.parse(["txtvers=1", "v=1", "id=\(Self.id)"]).get()
        #expect(minimal.status == .available)
        #expect(minimal.statusText == "")
        let odd = try TXTRecord.parse(Self.record(replacing: "status", with: "status=dnd")).get()
        #expect(odd.status == .available)
        let bare = try TXTRecord.parse(Self.record(replacing: "msg", with: "msg")).get()
        #expect(bare.statusText == "")
    }

    @Test func unknownKeysAndEmptyStringsAreIgnored() throws {
        let strings = Self.record() + ["", "=orphan", "org.freedesktop.Avahi.cookie=123", "flag"]
        let parsed = try TXTRecord.parse(strings).get()
        #expect(parsed.key == Self.key)
        #expect(parsed.status == .busy)
        #expect(parsed.statusText == "hello")
    }

    @Test func acceptsAHigherWireVersion() throws {
        let parsed = try TXTRecord.parse(Self.record(replacing: "v", with: "v=3")).get()
        #expect(parsed.maxVersion == 3)
    }

    @Test func longReceivedStatusTextIsCutNotRejected() throws {
        let long = String(repeating: "x", count: 200)
        let parsed = try TXTRecord.parse(Self.record(replacing: "msg", with: "msg=\(long)")).get()
        #expect(parsed.statusText == String(repeating: "x", count: 128))
    }

    @Test func invalidUTF8InTheMessageIsRepairedNotRejected() throws {
        var strings = Self.record(replacing: "msg").map { Array($0.utf8) }
        strings.append(Array("msg=".utf8) + [0xFF, 0x41])
        let parsed = try TXTRecord.parse(strings).get()
        #expect(parsed.statusText == "\u{FFFD}A")
    }
}
