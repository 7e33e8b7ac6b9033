/// The TXT record of `_lanchat._tcp` (PROTOCOL.md §3.3, §10): what we publish and the strict
/// parser for what others publish. Pure; used by the Avahi backend on its poll thread and by
/// tests and fuzzers anywhere.
///
/// Parsing follows DNS-SD (RFC 6763 §6) for the framing — keys are case-insensitive, an empty
/// string or an entry with an empty key is ignored, unknown keys are ignored — and §3.3 for
/// everything that could matter: a record is dropped when `id` is missing or is not a canonical
/// 32-byte key, when any key appears twice, when any value is longer than 255 bytes, when
/// `txtvers` is not `1`, or when `v` is missing or not a version number. `status` and `msg` are
/// display-only labels and never cause a drop.
public enum TXTRecord {
    /// The `txtvers` we publish and the only one we accept.
    public static let formatVersion = 1
    /// The highest wire version this build speaks (`v=`).
    public static let wireVersion: UInt8 = 1
    /// The longest status text we publish (`msg=`), in UTF-8 bytes.
    public static let maxStatusTextBytes = 128
    /// The longest value we accept from the network, in bytes.
    public static let maxValueBytes = 255

    /// The TXT strings for `advertisement`, in publishing order. The status text is cut to
    /// `maxStatusTextBytes` at a character boundary, so the record is always valid.
    public static func encode(_ advertisement: Advertisement) -> [String] {
        [
            "txtvers=\(formatVersion)",
            "v=\(wireVersion)",
            "id=\(advertisement.key.id)",
            "status=\(advertisement.status.txtValue)",
            "msg=\(truncated(advertisement.statusText, toUTF8Bytes: maxStatusTextBytes))",
        ]
    }

    /// Parses received TXT strings (each one `key=value` as raw bytes). Never traps.
    public static func parse(
        _ strings: some Sequence<some Collection<UInt8>>
    ) -> Result<PeerAnnouncement, TXTRecordRejection> {
        var entries: [String: [UInt8]?] = [:]
        for string in strings {
            let bytes = Array(string)
            guard let entry = TXTEntry(bytes) else { continue }
            if entries[entry.key] != nil {
                return .failure(.duplicateKey(entry.key))
            }
            if let value = entry.value, value.count > maxValueBytes {
                return .failure(.valueTooLong(key: entry.key, byteCount: value.count))
            }
            entries[entry.key] = .some(entry.value)
        }
        return announcement(from: entries)
    }

    /// Convenience for tests and tools: parses UTF-8 strings.
    public static func parse(_ strings: [String]) -> Result<PeerAnnouncement, TXTRecordRejection> {
        parse(strings.map { Array($0.utf8) })
    }

    private static func announcement(
        from entries: [String: [UInt8]?]
    ) -> Result<PeerAnnouncement, TXTRecordRejection> {
        guard let formatEntry = entries["txtvers"] else { return .failure(.missingFormatVersion) }
        guard let format = formatEntry, decimal(format) == formatVersion else {
            return .failure(.unsupportedFormatVersion(display(formatEntry)))
        }
        guard let versionEntry = entries["v"] else { return .failure(.missingWireVersion) }
        guard let versionBytes = versionEntry, let version = decimal(versionBytes),
            (1...Int(UInt8.max)).contains(version)
        else { return .failure(.invalidWireVersion(display(versionEntry))) }
        guard let idEntry = entries["id"] else { return .failure(.missingID) }
        let key: PeerKey
        switch peerKey(fromID: idEntry ?? []) {
        case .success(let parsed): key = parsed
        case .failure(let rejection): return .failure(rejection)
        }
        let status = (entries["status"] ?? nil).flatMap {
            AnnouncedStatus(txtValue: String(decoding: $0, as: UTF8.self))
        }
        let message = (entries["msg"] ?? nil).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return .success(
            PeerAnnouncement(
                key: key, maxVersion: UInt8(version), status: status ?? .available,
                statusText: truncated(message, toUTF8Bytes: maxStatusTextBytes)))
    }

    /// Tells apart the ways an `id` value can be wrong, for the debug log line.
    private static func peerKey(fromID value: [UInt8]) -> Result<PeerKey, TXTRecordRejection> {
        let text = String(decoding: value, as: UTF8.self)
        guard value.allSatisfy({ $0 < 0x80 }), let decoded = Base32.decode(text) else {
            return .failure(.invalidBase32)
        }
        guard decoded.count == PeerKey.byteCount, value.count == PeerKey.idLength else {
            return .failure(.wrongKeyLength(byteCount: decoded.count))
        }
        guard let key = PeerKey(bytes: decoded) else { return .failure(.nonCanonicalKey) }
        return .success(key)
    }

    /// A plain decimal number without sign or leading zeros, at most three digits.
    private static func decimal(_ bytes: [UInt8]) -> Int? {
        guard (1...3).contains(bytes.count), bytes.allSatisfy({ (0x30...0x39).contains($0) }),
            bytes.count == 1 || bytes[0] != 0x30
        else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// A short, printable rendering of an untrusted value for a rejection reason.
    private static func display(_ value: [UInt8]?) -> String {
        guard let value else { return "(no value)" }
        let printable = value.prefix(16).map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }
        return String(decoding: printable, as: UTF8.self) + (value.count > 16 ? "…" : "")
    }

    /// `text` cut to at most `limit` UTF-8 bytes without splitting a character.
    static func truncated(_ text: String, toUTF8Bytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            result.append(character)
            used += size
        }
        return result
    }
}

/// Why a received TXT record was dropped. Safe to log: it never carries a whole value.
public enum TXTRecordRejection: Error, Hashable, Sendable, CustomStringConvertible {
    case missingID
    case invalidBase32
    case wrongKeyLength(byteCount: Int)
    case nonCanonicalKey
    case duplicateKey(String)
    case valueTooLong(key: String, byteCount: Int)
    case missingFormatVersion
    case unsupportedFormatVersion(String)
    case missingWireVersion
    case invalidWireVersion(String)

    public var description: String {
        switch self {
        case .missingID: "no id"
        case .invalidBase32: "id is not base32"
        case .wrongKeyLength(let count): "id decodes to \(count) bytes, not 32"
        case .nonCanonicalKey: "id is not a canonical X25519 key"
        case .duplicateKey(let key): "duplicate key \(key)"
        case .valueTooLong(let key, let count): "value of \(key) is \(count) bytes"
        case .missingFormatVersion: "no txtvers"
        case .unsupportedFormatVersion(let value): "txtvers \(value) is not 1"
        case .missingWireVersion: "no v"
        case .invalidWireVersion(let value): "v \(value) is not a version"
        }
    }
}

/// One DNS-SD TXT string split at its first `=` (RFC 6763 §6.3–6.4). Nil for strings that
/// must be silently ignored: empty, or with an empty key.
private struct TXTEntry {
    /// ASCII-lower-cased, since DNS-SD keys are case-insensitive.
    var key: String
    /// Nil for a bare key (a boolean attribute), empty for `key=`.
    var value: [UInt8]?

    init?(_ bytes: [UInt8]) {
        let separator = bytes.firstIndex(of: UInt8(ascii: "="))
        let keyBytes = bytes[..<(separator ?? bytes.endIndex)]
        guard !keyBytes.isEmpty else { return nil }
        let lowered = keyBytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        key = String(decoding: lowered, as: UTF8.self)
        value = separator.map { Array(bytes[(bytes.index(after: $0))...]) }
    }
}
