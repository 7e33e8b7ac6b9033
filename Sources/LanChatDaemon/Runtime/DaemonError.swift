/// Why the daemon cannot start or must stop, with the exit code PRODUCT.md §3 assigns.
public struct DaemonError: Error, CustomStringConvertible, Sendable {
    private enum Kind: Sendable {
        case usage, dataDirectory, socket, locked, configuration, identity, store
    }

    private let kind: Kind
    public let description: String

    private init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    public static func usage(_ message: String) -> Self { .init(.usage, message) }
    public static func dataDirectory(_ message: String) -> Self { .init(.dataDirectory, message) }
    public static func socketUnavailable(_ message: String) -> Self { .init(.socket, message) }
    public static func locked(_ message: String) -> Self { .init(.locked, message) }
    public static func configuration(_ message: String) -> Self { .init(.configuration, message) }
    public static func identity(_ message: String) -> Self { .init(.identity, message) }
    /// The store is damaged or from a newer version: networking must not start (fail closed).
    public static func store(_ message: String) -> Self { .init(.store, message) }

    /// sysexits(3): 64 usage · 73 cannot create · 75 temporary failure (lock held) ·
    /// 78 configuration (bad config, corrupt key or store).
    public var exitCode: Int32 {
        switch kind {
        case .usage: 64
        case .dataDirectory, .socket: 73
        case .locked: 75
        case .configuration, .identity, .store: 78
        }
    }
}
