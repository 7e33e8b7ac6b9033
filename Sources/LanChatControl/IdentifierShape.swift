/// The shapes in which a PEER or GROUP argument is read as an identifier, never as a name
/// (PRODUCT.md §4): a key tag `XXXX-XXXX` and a peer id (52 characters), both in the RFC 4648
/// base32 alphabet, and a group id (32 hex digits), in either case. One definition for the
/// daemon, which refuses aliases and group names of these shapes, and the CLI's completion,
/// which never offers such a name as a word (it would name something else).
public enum IdentifierShape {
    public static func isKeyTag(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 9, bytes[4] == UInt8(ascii: "-") else { return false }
        return bytes.enumerated().allSatisfy { $0.offset == 4 || isBase32($0.element) }
    }

    public static func isPeerID(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 52 && text.utf8.allSatisfy(isBase32)
    }

    public static func isGroupID(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy(isHexDigit)
    }

    /// Any of the three.
    public static func isIdentifier(_ text: some StringProtocol) -> Bool {
        isKeyTag(text) || isPeerID(text) || isGroupID(text)
    }

    private static func isBase32(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "2")...UInt8(ascii: "7")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
