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

    /// What was saved; `nil` when nothing was (first start), and an error for a file that
    /// cannot be read or makes no sense (the caller logs it and starts as available).
    func load() -> Result<Saved?, PresenceFileError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            return errno == ENOENT ? .success(nil) : .failure(failure("read"))
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while bytes.count <= Self.maxBytes {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return .failure(failure("read")) }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let (word, rest) =
            text.firstIndex(of: "\n").map { (text[..<$0], text[text.index(after: $0)...]) }
            ?? (text[...], "")
        guard bytes.count <= Self.maxBytes, let status = AnnouncedStatus(txtValue: String(word))
        else {
            return .failure(PresenceFileError(description: "\(path) is not a presence file"))
        }
        return .success(Saved(status: status, statusText: String(rest)))
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

struct PresenceFileError: Error, CustomStringConvertible {
    let description: String
}

extension PresenceFile {
    /// What was saved, or nothing (logged) when the file cannot be used.
    func loadLogging(_ logger: Logger) -> Saved? {
        switch load() {
        case .success(let saved): return saved
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
