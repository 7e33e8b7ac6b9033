/// The reason carried in a CLOSE frame (PROTOCOL.md §4.2). A struct rather than an enum so that
/// a reason added by a later version still decodes (as its number) instead of failing.
public struct CloseReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let normal = CloseReason(rawValue: 0)
    public static let protocolError = CloseReason(rawValue: 1)
    public static let replaced = CloseReason(rawValue: 2)
    public static let duplicate = CloseReason(rawValue: 3)
    public static let idle = CloseReason(rawValue: 4)
    public static let shutdown = CloseReason(rawValue: 5)
    public static let sessionExpired = CloseReason(rawValue: 6)

    public var description: String {
        switch rawValue {
        case 0: "normal"
        case 1: "protocol error"
        case 2: "replaced"
        case 3: "duplicate"
        case 4: "idle"
        case 5: "shutdown"
        case 6: "session expired"
        default: "reason \(rawValue)"
        }
    }
}
