/// `--accept anyone|contacts` (PRODUCT.md §3, §6): with `contacts`, messages from a peer that
/// is not a contact are stored, delivered and acknowledged, but kept apart as a message
/// request until `lanchat accept`.
public enum AcceptPolicy: String, Sendable, CaseIterable {
    case anyone, contacts

    /// Parses an option or file value; nil for anything else.
    public init?(option: String) {
        self.init(rawValue: option)
    }
}
