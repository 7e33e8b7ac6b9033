import Foundation
import Glibc
import LanChatCore
import Logging

/// Our own presence and status text, kept across restarts (PRODUCT.md §3) in
/// `<data dir>/presence`: the status word of the mDNS record (`avail`, `away`, `busy`) on the
/// first line, the status text after it, verbatim. Replaced atomically (temporary file,
/// fsync, rename) on every `lanchat presence`, so a crash leaves the old or the new one.
///
/// A file, not a store table: it is read before anything is announced and is the daemon's
/// own business, not the message store's (whose schema migrates separately).
struct PresenceFile {
    static let fileName = "presence"

    let path: String

    init(dataDirectory: String) {
        path = dataDirectory + "/" + Self.fileName
    }

    struct Saved: Equatable {
        var status: AnnouncedStatus
        var statusText: String
    }

    /// A file read: what it says, and what was mended to use it (a file edited by hand).
    struct Loaded: Equatable {
        var saved: Saved
        var mended: String?
    }

    /// What was saved; `nil` when nothing was (first start), and an error for a file that
    /// cannot be read or makes no sense (the caller logs it and starts as available). A file
    /// edited by hand is used within the limits HELLO and PRESENCE carry (PRODUCT.md §7),
    /// not sent as it is: a status text over 128 bytes made every peer close every session
    /// as a protocol error (found by QA).
    func load() -> Result<Loaded?, PresenceFileError> {
        // A FIFO, a directory or a link put here is refused at once (found by QA: a FIFO held
        // the start, or a SIGHUP's reload and every signal after it).
        let bytes: [UInt8]
        switch SmallFile.read(path, maxBytes: Self.maxBytes, followLinks: false) {
        case .success(let read):
            bytes = read
        case .failure(let failure) where failure.code == ENOENT:
            return .success(nil)
        case .failure(let failure) where failure.code == ELOOP:
            return .failure(
                PresenceFileError(
                    description: "\(path) is a symbolic link; lanchatd writes this file "
                        + "itself: remove the link"))
        case .failure(let failure) where failure.notRegular || failure.code == EISDIR:
            return .failure(
                PresenceFileError(
                    description: "\(path) is not a regular file; lanchatd writes this file "
                        + "itself: remove what is there"))
        case .failure(let failure) where failure.code == EFBIG:
            return .failure(PresenceFileError(description: "\(path) is not a presence file"))
        case .failure(let failure):
            return .failure(
                PresenceFileError(description: "cannot read \(path): \(failure.reason)"))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let (word, rest) =
            text.firstIndex { $0 == "\n" || $0 == "\r\n" }
            .map { (text[..<$0], text[text.index(after: $0)...]) }
            ?? (text[...], "")
        guard let status = Self.status(named: word) else {
            return .failure(PresenceFileError(description: "\(path) is not a presence file"))
        }
        var (statusText, mended) = Self.usable(String(rest))
        if String(validating: bytes, as: UTF8.self) == nil {
            let replaced = "bytes that are not UTF-8 shown as U+FFFD"
            mended = mended.map { "\($0), \(replaced)" } ?? replaced
        }
        return .success(
            Loaded(
                saved: Saved(status: status, statusText: statusText),
                mended: mended.map { "\(path): \($0)" }))
    }

    /// The status word as written here (`avail`), or as the API and `lanchat presence` name
    /// it (`available`), around white space.
    static func status(named word: Substring) -> AnnouncedStatus? {
        let word = word.trimmingCharacters(in: .whitespaces)
        return AnnouncedStatus(txtValue: word == "available" ? "avail" : word)
    }

    /// The status text within what a peer takes: without the line break an editor ends a
    /// file with, without NUL, at most 128 bytes (cut between characters); and what was
    /// changed, if anything.
    static func usable(_ text: String) -> (String, mended: String?) {
        var text = text
        var changes: [String] = []
        if text.last == "\n" || text.last == "\r\n" { text.removeLast() }
        if text.contains("\0") {
            text.removeAll { $0 == "\0" }
            changes.append("NUL removed from the status text")
        }
        let limit = Limits.maxStatusTextBytes
        if text.utf8.count > limit {
            while text.utf8.count > limit { text.removeLast() }
            changes.append("status text cut to \(limit) bytes")
        }
        return (text, changes.isEmpty ? nil : changes.joined(separator: ", "))
    }

    /// Replaces the file with `saved`, mode 0600.
    func save(_ saved: Saved) throws(PresenceFileError) {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let directory = String(path[..<slash])
        let temporary = "\(directory)/.\(Self.fileName).tmp-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create") }
        let bytes = Array((saved.status.txtValue + "\n" + saved.statusText).utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("write")
                close(fd)
                unlink(temporary)
                throw error
            }
            written += count
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            let error = failure(synced ? "replace" : "sync")
            unlink(temporary)
            throw error
        }
    }

    /// Far above any status text (PRODUCT.md §7): a bigger file is not ours.
    private static let maxBytes = 4096

    private func failure(_ step: String) -> PresenceFileError {
        let cause =
            errno == ENOSPC || errno == EDQUOT
            ? "the disk is full" : String(cString: strerror(errno))
        return PresenceFileError(description: "cannot \(step) \(path): \(cause)")
    }
}

extension PresenceFile {
    /// A file that was mended to be used is said once, and written back as it is used, so
    /// that the next start or SIGHUP does not say it again (found by QA: every reload warned
    /// of the same cut status text).
    func rewriteMended(_ loaded: Loaded, _ logger: Logger, prefix: String = "") {
        guard let mended = loaded.mended else { return }
        do {
            try save(loaded.saved)
            logger.warning("\(prefix)\(mended); the file is written again as used")
        } catch {
            logger.warning("\(prefix)\(mended); \(error)")
        }
    }
}

struct PresenceFileError: Error, CustomStringConvertible {
    let description: String
}

extension PresenceFile {
    /// What was saved, or nothing (logged) when the file cannot be used.
    func loadLogging(_ logger: Logger) -> Saved? {
        switch load() {
        case .success(let loaded):
            if let loaded { rewriteMended(loaded, logger) }
            return loaded?.saved
        case .failure(let error):
            logger.warning("\(error); starting as available")
            return nil
        }
    }
}

extension OwnProfile {
    convenience init(name: String, saved: PresenceFile.Saved?) {
        self.init(
            name: name, status: saved?.status ?? .available, statusText: saved?.statusText ?? "")
    }
}
