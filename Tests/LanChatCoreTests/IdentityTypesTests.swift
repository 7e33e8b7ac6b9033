import Testing

@testable import LanChatCore

@Suite("Peer identity text forms")
struct IdentityTypesTests {
    /// X25519 public key of the secret 11…11 (vectors/lcht1.json, init_static_pk).
    static let vectorKey = hex("7b4e909bbe7ffe44c465a220037d608ee35897d31ef972f07f74892cb0f73f13")

    @Test func idOfTheVectorKeyMatchesTheKnownAnswer() throws {
        let key = try #require(PeerKey(bytes: Self.vectorKey))
        #expect(key.id == "PNHJBG56P77EJRDFUIQAG7LAR3RVRF6TD34XF4D7OSESZMHXH4JQ")
        #expect(PeerKey(id: key.id.lowercased()) == key)
    }

    @Test func base32RoundTripsEveryLength() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base32.decode(Base32.encode(bytes)) == bytes)
        }
    }

    @Test func base32RejectsForeignCharactersAndNonZeroTrailingBits() {
        #expect(Base32.decode("AB1") == nil)  // '1' is not in the alphabet
        #expect(Base32.decode("AB=") == nil)
        #expect(Base32.decode("AA") == [0x00])
        #expect(Base32.decode("AB") == nil)  // the 2 trailing bits of 'B' are not zero
        #expect(Base32.decode("A") == nil)  // 5 bits cannot make a byte
    }

    @Test func peerKeyRejectsWrongLengthsAndNonCanonicalEncodings() {
        #expect(PeerKey(bytes: [UInt8](repeating: 1, count: 31)) == nil)
        #expect(PeerKey(bytes: [UInt8](repeating: 1, count: 33)) == nil)
        var highBit = Self.vectorKey
        highBit[31] |= 0x80
        #expect(PeerKey(bytes: highBit) == nil)
        // p = 2^255 − 19 and p + 1 are not canonical; p − 1 is.
        var p = [UInt8](repeating: 0xFF, count: 32)
        p[0] = 0xED
        p[31] = 0x7F
        #expect(PeerKey(bytes: p) == nil)
        p[0] = 0xEE
        #expect(PeerKey(bytes: p) == nil)
        p[0] = 0xEC
        #expect(PeerKey(bytes: p) != nil)
        #expect(PeerKey(id: Base32.encode(highBit)) == nil)
        #expect(PeerKey(id: "PNHJBG56P77EJRDFUIQAG7LAR3RVRF6TD34XF4D7OSESZMHXH4J") == nil)
    }

    @Test func messageIDRoundTripsThroughText() throws {
        let id = MessageID.random()
        #expect(id.bytes[6] >> 4 == 4)
        #expect(id.bytes[8] & 0xC0 == 0x80)
        #expect(MessageID(text: id.description) == id)
        #expect(MessageID(text: id.description.uppercased()) == id)
        #expect(MessageID(text: "00000000-0000-0000-0000-00000000000") == nil)
        #expect(MessageID(text: "00000000_0000-0000-0000-000000000000") == nil)
        #expect(MessageID(text: "0000000g-0000-0000-0000-000000000000") == nil)
    }

    @Test func batchRandomDrawsAreDistinctAndUseEveryBit() {
        var generator = BatchRandom()
        // More than one refill of the buffer.
        let draws = (0..<2_000).map { _ in generator.next() }
        #expect(Set(draws).count == 2_000)
        // Every bit position is set in some draw and clear in another.
        #expect(draws.reduce(0, |) == .max)
        #expect(draws.reduce(.max, &) == 0)
    }

    @Test func timeOrderedIDsCarryTheirMillisecondAndSortByIt() throws {
        let now: Int64 = 1_763_700_000_123  // 2025-11-21T04:40:00.123Z
        let id = MessageID.timeOrdered(millisecondsSince1970: now)
        #expect(id.bytes[6] >> 4 == 7)
        #expect(id.bytes[8] & 0xC0 == 0x80)
        let stamp = id.bytes[0..<6].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        #expect(stamp == now)
        #expect(id.description.hasPrefix("019aa4b6-"))
        #expect(MessageID(text: id.description) == id)
        // Later ids sort after earlier ones, byte for byte (what the store's index sees).
        let ids = (0..<50).map { MessageID.timeOrdered(millisecondsSince1970: now + Int64($0)) }
        for (earlier, later) in zip(ids, ids.dropFirst()) {
            #expect(earlier.bytes.lexicographicallyPrecedes(later.bytes))
        }
        // The same millisecond still gives distinct ids.
        let sameMillisecond = Set(
            (0..<1_000).map { _ in
                MessageID.timeOrdered(millisecondsSince1970: now)
            })
        #expect(sameMillisecond.count == 1_000)
        // A batch's ids, all of one millisecond, sort in the batch's order and are distinct
        // version-7 ids (QA found independent draws out of order).
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let batch = MessageID.timeOrdered(
                count: 1_000, millisecondsSince1970: now, using: &generator)
            #expect(batch.count == 1_000 && Set(batch).count == 1_000)
            #expect(batch[0].bytes[8] & 0x20 == 0, "the counter starts with room to count")
            #expect(batch.allSatisfy { $0.bytes[6] >> 4 == 7 && $0.bytes[8] & 0xC0 == 0x80 })
            #expect(
                batch.allSatisfy { $0.bytes[0..<6].reduce(Int64(0)) { $0 << 8 | Int64($1) } == now }
            )
            for (earlier, later) in zip(batch, batch.dropFirst()) {
                #expect(earlier.bytes.lexicographicallyPrecedes(later.bytes))
            }
        }
        #expect(
            MessageID.timeOrdered(count: 0, millisecondsSince1970: now, using: &generator).isEmpty)
        // A clock before 1970 or past 48 bits is clamped, never trapped on.
        #expect(
            MessageID.timeOrdered(millisecondsSince1970: -5).bytes[0..<6].allSatisfy { $0 == 0 })
        #expect(
            MessageID.timeOrdered(millisecondsSince1970: .max).bytes[0..<6].allSatisfy {
                $0 == 0xFF
            })
    }

    @Test(arguments: [
        ("127.0.0.1:4000", Endpoint(host: "127.0.0.1", port: 4000)),
        ("bob.local:1", Endpoint(host: "bob.local", port: 1)),
        ("[::1]:65535", Endpoint(host: "::1", port: 65535)),
        ("[fe80::1%eth0]:7", Endpoint(host: "fe80::1", port: 7, scope: "eth0")),
    ])
    func endpointsParseAndPrintBack(text: String, expected: Endpoint) {
        #expect(Endpoint(parsing: text) == expected)
        #expect(expected.description == text)
    }

    @Test(arguments: [
        "", "host", "host:", ":80", "host:0", "host:65536", "::1:80", "[::1]80",
        "[fe80::1%]:7", "[::1:80",
    ])
    func malformedEndpointsAreRejected(text: String) {
        #expect(Endpoint(parsing: text) == nil)
    }
}

func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}
