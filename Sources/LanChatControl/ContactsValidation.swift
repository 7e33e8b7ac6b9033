/// The contact methods' checks that need no daemon state (see `ParamsValidation.swift`).
public enum ContactLimits {
    /// Aliases follow display names: 1 … 64 bytes of UTF-8 (PRODUCT.md §7).
    public static let maxAliasBytes = 64
    /// A peer id: base32 (RFC 4648, no padding) of a 32-byte key.
    public static let idLength = 52
    /// A safety number (PROTOCOL.md §6): 60 decimal digits.
    public static let safetyNumberDigits = 60
}

extension AliasParams {
    /// The alias to set, or nil for `clear`: exactly one of the two, and a valid alias.
    public func validatedAlias() throws(ControlError) -> String? {
        switch (name, clear ?? false) {
        case (nil, true): return nil
        case (let name?, false): return try ContactLimits.validatedAlias(name)
        default: throw .invalidParams("give exactly one of \"name\" and \"clear\": true")
        }
    }
}

extension AddParams {
    /// The alias and the id in canonical (upper-case) form, checked for shape: 52 base32
    /// characters. Whether they make a valid key is the daemon's check.
    public func validated() throws(ControlError) -> (alias: String, id: String) {
        let alias = try ContactLimits.validatedAlias(name)
        let id = self.id.trimmingSpaces.uppercased()
        guard id.utf8.count == ContactLimits.idLength else {
            throw .badInput(
                "a peer id has \(ContactLimits.idLength) characters; '\(self.id)' has \(self.id.count)"
            )
        }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        guard id.allSatisfy({ alphabet.contains($0) }) else {
            throw .badInput("'\(self.id)' is not base32 (letters A-Z and digits 2-7)")
        }
        return (alias, id)
    }
}

extension VerifyParams {
    /// The given safety number as 60 digits, spaces removed; nil when none was given.
    public func validatedNumber() throws(ControlError) -> String? {
        guard let number else { return nil }
        let digits = number.filter { $0 != " " && $0 != "\t" && $0 != "\n" }
        guard digits.utf8.count == ContactLimits.safetyNumberDigits,
            digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else {
            throw .badInput(
                "a safety number is \(ContactLimits.safetyNumberDigits) digits (spaces allowed); nothing changed"
            )
        }
        return digits
    }
}

extension ContactLimits {
    static func validatedAlias(_ alias: String) throws(ControlError) -> String {
        let trimmed = alias.trimmingSpaces
        guard !trimmed.isBlankText else { throw .badInput("the alias is empty") }
        guard trimmed.utf8.count <= maxAliasBytes else {
            throw .badInput("an alias is at most \(maxAliasBytes) bytes")
        }
        guard !trimmed.unicodeScalars.contains(where: \.isControlOrBidiOverride)
        else { throw .badInput("an alias cannot contain control or bidi characters") }
        // `#NAME` always names a group (found by QA: an alias '#ops' was taken, then every
        // command given it looked for a group).
        guard !trimmed.hasPrefix("#") else {
            throw .badInput("an alias cannot start with '#', which names a group")
        }
        return trimmed
    }
}

extension Unicode.Scalar {
    /// A control character, or a bidi embedding, override or isolate (U+202A…U+202E,
    /// U+2066…U+2069): what a name we are asked to store may not hold. Other format
    /// characters stay allowed (U+200D joins emoji).
    package var isControlOrBidiOverride: Bool {
        properties.generalCategory == .control || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (no Foundation here).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }),
            let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
