import LanChatCore

/// Seeds: what we publish (the vector key, each status, a long and a non-ASCII status text),
/// then the records the TXT unit tests reject or tolerate, in DNS framing; a few in wide
/// framing for values over 255 bytes.
enum TXTRecordSeeds {
    /// The vector initiator's key (PROTOCOL.md §3.11) as an id.
    static let id = "PNHJBG56P77EJRDFUIQAG7LAR3RVRF6TD34XF4D7OSESZMHXH4JQ"

    static func dns(_ strings: [String]) -> [UInt8] {
        [0]
            + strings.flatMap { string -> [UInt8] in
                let bytes = Array(string.utf8.prefix(255))
                return [UInt8(bytes.count)] + bytes
            }
    }

    static func wide(_ strings: [String]) -> [UInt8] {
        [1]
            + strings.flatMap { string -> [UInt8] in
                let bytes = Array(string.utf8)
                return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
            }
    }

    static func all() -> [(name: String, bytes: [UInt8])] {
        let record = ["txtvers=1", "v=1", "id=\(id)", "status=avail", "msg=hello"]
        var seeds: [(String, [UInt8])] = []
        if let key = PeerKey(id: id) {
            for status in AnnouncedStatus.allCases {
                let published = TXTRecord.encode(
                    Advertisement(
                        instanceName: "alice@deskpro (3EBM-VERF)", port: 4711, key: key,
                        status: status, statusText: "Grüße, 🙂"))
                seeds.append(("published-\(status.txtValue)", dns(published)))
            }
            let long = TXTRecord.encode(
                Advertisement(
                    instanceName: "bob", port: 1, key: key, status: .busy,
                    statusText: String(repeating: "é", count: 100)))
            seeds.append(("published-long-text", dns(long)))
        }
        seeds += [
            ("minimal", dns(["txtvers=1", "v=1", "id=\(id)"])),
            ("shouting", dns(["TXTVERS=1", "V=1", "Id=\(id.lowercased())"])),
            ("extras", dns(record + ["", "=orphan", "org.freedesktop.Avahi.cookie=123", "flag"])),
            ("v3-peer", dns(["txtvers=1", "v=3", "id=\(id)", "status=dnd", "msg"])),
            ("bad-no-id", dns(["txtvers=1", "v=1", "status=avail"])),
            ("bad-bare-id", dns(["txtvers=1", "v=1", "id"])),
            (
                "bad-base32",
                dns(["txtvers=1", "v=1", "id=" + String(repeating: "A", count: 51) + "1"])
            ),
            (
                "bad-trailing-bits",
                dns(["txtvers=1", "v=1", "id=" + String(repeating: "A", count: 51) + "B"])
            ),
            (
                "bad-non-canonical",
                dns(["txtvers=1", "v=1", "id=" + String(repeating: "7", count: 51) + "Q"])
            ),
            ("bad-duplicate", dns(record + ["MSG=again"])),
            ("bad-txtvers", dns(["txtvers=01", "v=1", "id=\(id)"])),
            ("bad-v", dns(["txtvers=1", "v=256", "id=\(id)"])),
            ("bad-no-txtvers", dns(["v=1", "id=\(id)"])),
            ("wide-value-too-long", wide(record + ["note=" + String(repeating: "m", count: 256)])),
            ("wide-value-just-fits", wide(record + ["note=" + String(repeating: "m", count: 255)])),
        ]
        return seeds.map { (name: "seed-" + $0.0, bytes: $0.1) }
    }
}
