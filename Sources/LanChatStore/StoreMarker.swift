import Foundation
import Glibc

/// What the data directory remembers about its store, outside the store: which store it is
/// (the id in `store_identity`), how much it held at the last clean stop, and its
/// generation. Written at every start (after the checks) and on every clean stop
/// (`MessageStore.close()`), and after a backup; read at start.
///
/// Why: SQLite treats a missing or damaged `-wal` as empty, and until the first checkpoint
/// the main file holds no tables, so after a crash such a store opens as a new, empty one.
/// The marker lets the daemon notice that instead of running silently on it.
///
/// The file is a few lines of text, written atomically (temporary + fsync + rename + fsync of
/// the directory; the temporary is named `.store.marker.tmp-*`, which the daemon's start-up
/// clean-up of stale temporaries removes after a crash):
///
///     lanchat store marker 2
///     store 3f2a…(32 hex digits)
///     messages 120
///     peers 3
///     generation 17
///
/// `generation` is the store's own (schema v12), raised at every start and after every
/// backup, so a restored backup is older than the marker whatever it holds. Version 1 had
/// no such line; it is still read, and replaced by version 2 at the next start.
public struct StoreMarker: Sendable, Equatable {
    /// The file name inside the data directory.
    public static let fileName = "store.marker"
    /// The first line, before the version number.
    static let headerPrefix = "lanchat store marker "
    /// The newest version this lanchat writes and reads.
    static let version = 2
    static let header = headerPrefix + "\(version)"
    static let headerV1 = headerPrefix + "1"

    public var storeID: String
    public var messages: Int
    public var peers: Int
    /// nil in a version-1 marker.
    public var generation: Int64?

    public init(storeID: String, messages: Int, peers: Int, generation: Int64? = nil) {
        self.storeID = storeID
        self.messages = messages
        self.peers = peers
        self.generation = generation
    }

    var text: String {
        let common = "store \(storeID)\nmessages \(messages)\npeers \(peers)\n"
        guard let generation else { return Self.headerV1 + "\n" + common }
        return Self.header + "\n" + common + "generation \(generation)\n"
    }

    /// Parses the file's text; nil if it is not a marker of version 1 or 2.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let version2 = lines.first == Substring(Self.header)
        guard version2 || lines.first == Substring(Self.headerV1),
            lines.count == (version2 ? 6 : 5), lines.last?.isEmpty == true
        else { return nil }
        func value(_ line: Substring, _ key: String) -> Substring? {
            line.hasPrefix(key + " ") ? line.dropFirst(key.count + 1) : nil
        }
        guard let id = value(lines[1], "store"), id.count == 32,
            id.allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
            let messages = value(lines[2], "messages").flatMap({ Int($0) }), messages >= 0,
            let peers = value(lines[3], "peers").flatMap({ Int($0) }), peers >= 0
        else { return nil }
        var generation: Int64?
        if version2 {
            guard let value = value(lines[4], "generation").flatMap({ Int64($0) }), value >= 0
            else { return nil }
            generation = value
        }
        self.init(storeID: String(id), messages: messages, peers: peers, generation: generation)
    }

    /// The version of a marker a later lanchat wrote (a header of this format with a higher
    /// number), else nil.
    static func newerVersion(in text: String) -> Int? {
        guard let first = text.split(separator: "\n", maxSplits: 1).first,
            first.hasPrefix(headerPrefix),
            let version = Int(first.dropFirst(headerPrefix.count)), version > Self.version
        else { return nil }
        return version
    }

    /// The marker at `path`, or nil if there is none (first start, or a data directory from
    /// before markers). A file that cannot be read or parsed is an error: the guard it stands
    /// for must not be dropped silently.
    static func load(_ path: String) throws(StoreError) -> StoreMarker? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw StoreError(
                .unavailable,
                "cannot read the store marker \(path): \(String(cString: strerror(errno)))")
        }
        // Said, not left as a bare "cannot read" (QA: a directory or a FIFO in its place).
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(
                .unavailable,
                "the store marker \(path) is not a regular file; lanchatd writes it itself: "
                    + "move what is there aside")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(
                .unavailable,
                "cannot read the store marker \(path): \(String(cString: strerror(errno)))")
        }
        let text = String(decoding: data, as: UTF8.self)
        if let version = newerVersion(in: text) {
            // A downgrade: not damage, and moving the marker aside would drop its guard.
            throw StoreError(
                .tooNew,
                "the store marker \(path) was written by a newer lanchat (marker version "
                    + "\(version)); upgrade lanchat")
        }
        guard data.count < 4096, let marker = StoreMarker(text: text) else {
            throw StoreError(
                .corrupt,
                "the store marker \(path) is damaged; if the store is the right one, move the marker aside and start again (a new one is written)"
            )
        }
        return marker
    }

    /// Replaces the file at `path` atomically with this marker, mode 0600.
    func write(to path: String) throws(StoreError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary =
            "\(directory.isEmpty ? "" : directory)/.\(name).tmp-\(UInt32.random(in: 0...UInt32.max))"
        func failure(_ step: String) -> StoreError {
            StoreError(
                .unavailable,
                "cannot \(step) the store marker \(path): \(String(cString: strerror(errno)))")
        }
        let descriptor = open(
            temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create") }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress, $0.count)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("write")
                Glibc.close(descriptor)
                unlink(temporary)
                throw error
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let error = failure("sync")
            Glibc.close(descriptor)
            unlink(temporary)
            throw error
        }
        Glibc.close(descriptor)
        guard rename(temporary, path) == 0 else {
            let error = failure("replace")
            unlink(temporary)
            throw error
        }
        let directoryDescriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            Glibc.close(directoryDescriptor)
        }
    }
}
