/// Why the identity key cannot be used, worded for the one log line or terminal message a user
/// sees: what is wrong, where, and what to do about it. Never contains key material.
public struct IdentityKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// The data directory is missing and could not be created, or is not a directory.
        case directoryUnusable(reason: String)
        /// The data directory belongs to another user.
        case directoryNotOwned(owner: UInt32)
        /// The data directory is writable by group or others.
        case directoryWritableByOthers(mode: UInt32)
        /// `identity.key` is a symbolic link (refused with O_NOFOLLOW).
        case symbolicLink
        /// `identity.key` is not a regular file.
        case notRegularFile
        /// `identity.key` belongs to another user.
        case wrongOwner(owner: UInt32)
        /// `identity.key` is readable or writable by group or others.
        case insecureMode(mode: UInt32)
        /// The file could not be opened or read.
        case unreadable(reason: String)
        /// Wrong size, bad magic, unknown flags, bad checksum, all-zero or mismatched key.
        case corrupt(reason: String)
        /// Creating, syncing or renaming the key file failed.
        case writeFailed(step: String, reason: String)
        /// libsodium could not initialise or allocate.
        case cryptoFailure(String)
        /// `--reset-identity` with a key file that loads: refused, the key is kept.
        case resetOfHealthyKey(keyTag: String)
        /// `--reset-identity` with a valid key refused only for its link, owner or mode
        /// (`problem`, that refusal's text): refused too, the key is kept.
        case resetOfRefusedKey(keyTag: String, problem: String)
    }

    public let code: Code
    /// The file or directory concerned.
    public let path: String

    public init(_ code: Code, path: String) {
        self.code = code
        self.path = path
    }

    public var description: String {
        switch code {
        case .directoryUnusable(let reason):
            "data directory \(path) cannot be used (\(reason)); create it with `mkdir -m 700 \(path)`"
        case .directoryNotOwned(let owner):
            "data directory \(path) belongs to uid \(owner), not to you; use your own --data-dir"
        case .directoryWritableByOthers(let mode):
            "data directory \(path) is writable by other users (mode \(octal(mode))); "
                + "run `chmod 700 \(path)`"
        case .symbolicLink:
            "identity key \(path) is a symbolic link; refusing to follow it. "
                + "Replace it with the real file"
        case .notRegularFile:
            "identity key \(path) is not a regular file; move it away and restore the key"
        case .wrongOwner(let owner):
            "identity key \(path) belongs to uid \(owner), not to you; "
                + "fix it with `chown` or use your own --data-dir"
        case .insecureMode(let mode):
            "identity key \(path) is accessible by other users (mode \(octal(mode))); "
                + "run `chmod 600 \(path)`"
        case .unreadable(let reason):
            "identity key \(path) cannot be read (\(reason))"
        case .corrupt(let reason):
            "identity key \(path) is corrupt (\(reason)); refusing to start the network. "
                + "Restore it from a backup, or run `lanchatd --reset-identity` to move it aside "
                + "and create a new identity (every contact will see a key change)"
        case .writeFailed(let step, let reason):
            "could not write identity key \(path): \(step) failed (\(reason))"
        case .cryptoFailure(let what):
            "identity key \(path): \(what)"
        case .resetOfHealthyKey(let keyTag):
            "identity key \(path) is valid (key tag \(keyTag)); --reset-identity only replaces "
                + "a damaged or missing key, so nothing was changed: start without it. To give "
                + "this identity up on purpose (it leaked, say), move the file away first; every "
                + "contact will then see a key change"
        case .resetOfRefusedKey(let keyTag, let problem):
            "\(problem). The key in it is valid (key tag \(keyTag)): fixing that keeps this "
                + "identity, so --reset-identity, which only replaces a damaged or missing key, "
                + "changed nothing; start without it"
        }
    }

    private func octal(_ mode: UInt32) -> String {
        let text = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
