/// A message's 16-byte unique id (a UUID), shown as lower-case `8-4-4-4-12` text. Generated
/// by the sender; the receiver keeps a unique index on (peer, id) as the second line of
/// defence against duplicates (PROTOCOL.md §9.4). Any UUID is accepted from a peer; ours are
/// time-ordered (version 7, `timeOrdered`).
public struct MessageID: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 16
    public let bytes: [UInt8]

    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// A version-7 UUID (RFC 9562 §5.7): the 48-bit Unix time in milliseconds, big-endian,
    /// then 74 random bits. Why not version 4: both stores keep a unique index on
    /// (peer, direction, id), and random ids put every insert on a random page of it, so a
    /// batch of 1 000 messages rewrote hundreds of index pages into the WAL on each side.
    /// Time-ordered ids land at the index's end, a few pages per batch. The time reveals
    /// nothing new: MSG carries `sent_at` in the clear of the same encrypted frame.
    /// Uniqueness rests on the 74 random bits, so a clock that steps back does no harm.
    public static func timeOrdered(millisecondsSince1970 now: Int64) -> MessageID {
        var generator = SystemRandomNumberGenerator()
        return timeOrdered(millisecondsSince1970: now, using: &generator)
    }

    public static func timeOrdered(
        millisecondsSince1970 now: Int64, using generator: inout some RandomNumberGenerator
    ) -> MessageID {
        var bytes = random(using: &generator).bytes
        // 48 bits hold times up to the year 10889; before 1970 (a broken clock) counts as 0.
        let stamp = UInt64(max(0, min(now, 0xFFFF_FFFF_FFFF)))
        for index in 0..<6 {
            bytes[index] = UInt8(truncatingIfNeeded: stamp >> (8 * (5 - index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x70
        return MessageID(uncheckedBytes: bytes)
    }

    /// `count` version-7 ids of one batch, in the order they sort (RFC 9562 §6.2, method 1,
    /// with the 62 bits after the variant as the counter): the first is drawn as
    /// `timeOrdered` draws one, with the counter's top bit clear so that it cannot overflow;
    /// each next one adds a random step of up to 2^20. Why: lanchat-api(7) says ids sort by
    /// creation time, and independent draws in one millisecond did not (QA: 4 of 78 pairs of
    /// a `--lines` batch out of order).
    public static func timeOrdered(
        count: Int, millisecondsSince1970 now: Int64,
        using generator: inout some RandomNumberGenerator
    ) -> [MessageID] {
        guard count > 0 else { return [] }
        var first = timeOrdered(millisecondsSince1970: now, using: &generator).bytes
        first[8] &= 0xDF  // the counter's top bit, right after the two variant bits
        var counter = first[8...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & 0x3FFF_FFFF_FFFF_FFFF
        var ids = [MessageID(uncheckedBytes: first)]
        ids.reserveCapacity(count)
        for _ in 1..<count {
            counter += 1 + (generator.next() & 0xF_FFFF)
            var bytes = first
            for index in 0..<8 {
                bytes[8 + index] = UInt8(truncatingIfNeeded: counter >> (8 * (7 - index)))
            }
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            ids.append(MessageID(uncheckedBytes: bytes))
        }
        return ids
    }

    /// A fresh random version-4 UUID.
    public static func random() -> MessageID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// Two 64-bit draws, not sixteen 8-bit ones: ids are made on the hot path of every send.
    public static func random(using generator: inout some RandomNumberGenerator) -> MessageID {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for half in 0..<2 {
            var word = generator.next()
            for index in 0..<8 {
                bytes[half * 8 + index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
            }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return MessageID(uncheckedBytes: bytes)
    }

    private init(uncheckedBytes: [UInt8]) {
        bytes = uncheckedBytes
    }

    /// Parses `8-4-4-4-12` hex text, any case. Nil for anything else.
    public init?(text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var index = 0
        while index < 36 {
            if [8, 13, 18, 23].contains(index) {
                guard utf8[index] == UInt8(ascii: "-") else { return nil }
                index += 1
                continue
            }
            guard let high = Self.hexValue(utf8[index]), let low = Self.hexValue(utf8[index + 1])
            else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(uncheckedBytes: bytes)
    }

    public var description: String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
