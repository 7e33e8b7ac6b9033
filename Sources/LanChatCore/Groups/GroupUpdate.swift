/// A group's 16-byte random id (PROTOCOL.md §9.7). Shown as 32 lower-case hex digits.
public struct GroupID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let byteCount = 16
    public let bytes: [UInt8]

    /// Nil unless exactly 16 bytes.
    public init?(bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        guard array.count == Self.byteCount else { return nil }
        self.bytes = array
    }

    /// Parses 32 hex digits (either case). Nil for anything else.
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * Self.byteCount else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1])
            else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    /// A new random id.
    public static func random() -> GroupID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return GroupID(unchecked: bytes)
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    public var hex: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    public var description: String { hex }

    public static func < (lhs: GroupID, rhs: GroupID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// One state of a group, as the GROUP kind carries it (0x08, PROTOCOL.md §9.7): id, version,
/// name and the member keys (own included). Every member's daemon holds the latest one it
/// accepted (`GroupConvergence`).
public struct GroupUpdate: Equatable, Sendable {
    public var id: GroupID
    public var version: UInt64
    public var name: String
    /// In the order they were decoded or given; `canonicalEncoding` sorts them.
    public var members: [PeerKey]

    public init(id: GroupID, version: UInt64, name: String, members: [PeerKey]) {
        self.id = id
        self.version = version
        self.name = name
        self.members = members
    }

    public func hasMember(_ key: PeerKey) -> Bool { members.contains(key) }

    /// The GROUP encoding with the members sorted by their bytes: two nodes holding the same
    /// state hold the same bytes, which is what the tie-break of `GroupConvergence` compares.
    public var canonicalEncoding: [UInt8] {
        var sorted = self
        sorted.members = Array(Set(members)).sorted()
        return AppMessage.group(sorted).encoded()
    }
}

/// Group limits (PRODUCT.md §7, issue 13).
extension Limits {
    public static let maxGroupMembers = 256
    public static let maxGroupNameBytes = 64
}
