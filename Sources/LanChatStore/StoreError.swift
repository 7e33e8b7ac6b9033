import GRDB

/// Why the message store cannot do what was asked. The daemon turns `unavailable` into the
/// control API's `storeUnavailable` (nothing was written) and `corrupt` into a refusal to
/// start networking (fail closed, PROTOCOL.md §5).
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// Disk full, read-only file system or store, I/O error: the transaction rolled back.
        case unavailable
        /// The file is not a lanchat store, or fails its integrity check.
        case corrupt
        /// Written by a newer lanchat (a schema version we do not know).
        case tooNew
        /// A message id, peer or stream that does not exist.
        case notFound
        /// A text the store cannot keep faithfully (one with U+0000, which SQLite's text
        /// binding would cut); refused before the transaction, so nothing was written.
        case invalidText
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// Classifies a SQLite error by its result code, so callers can tell a full disk from a
    /// bug.
    static func wrapping(_ error: any Error, while action: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let databaseError = error as? DatabaseError else {
            return StoreError(.unavailable, "\(action): \(error)")
        }
        switch databaseError.resultCode {
        case .SQLITE_FULL:
            return StoreError(.unavailable, "\(action): the disk is full")
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN, .SQLITE_AUTH:
            return StoreError(.unavailable, "\(action): the store is read-only or not accessible")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return StoreError(
                .corrupt, "\(action): the store is damaged (\(databaseError.message ?? "corrupt"))")
        default:
            return StoreError(
                .unavailable, "\(action): \(databaseError.message ?? "\(databaseError)")")
        }
    }
}
