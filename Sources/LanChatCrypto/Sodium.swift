internal import CSodium

/// libsodium start-up (PROTOCOL.md §3.1): `sodium_init` once, and a guard that the library is
/// at least 1.0.18 (ABI 10.3; later releases have larger majors, so never test for equality).
/// Every entry point of this module that touches libsodium calls `ensureInitialized` first.
public enum Sodium {
    /// Idempotent and thread-safe (a `static let` is initialised once).
    public static func initialize() throws(SodiumError) {
        try outcome.get()
    }

    private static let outcome: Result<Void, SodiumError> = {
        let major = sodium_library_version_major()
        let minor = sodium_library_version_minor()
        guard major > 10 || (major == 10 && minor >= 3) else {
            return .failure(SodiumError("libsodium ABI \(major).\(minor) is older than 1.0.18"))
        }
        guard sodium_init() >= 0 else {
            return .failure(SodiumError("sodium_init failed"))
        }
        return .success(())
    }()

    /// The library's version string, for the start-up log line.
    public static var versionString: String { String(cString: sodium_version_string()) }
}

/// libsodium could not be initialised or refused an allocation. Not caused by a peer.
public struct SodiumError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
