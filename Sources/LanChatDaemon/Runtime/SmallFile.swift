import Glibc

/// Reading a small file the user may edit by hand (the configuration, the presence file):
/// non-blocking, so that a FIFO put there is refused instead of waited on (a start, or a
/// SIGHUP's reload and every signal after it, would hang until something wrote to it); only
/// a regular file; and at most `maxBytes`, since a huge one is a mistake, not a setting.
enum SmallFile {
    struct Failure: Error {
        /// errno: ENOENT, ELOOP (a link where none is followed), EISDIR, EFBIG (over
        /// `maxBytes`), or what `open` or `read` said.
        let code: Int32
        /// Something other than a regular file or a directory (a FIFO, a device).
        var notRegular = false

        var reason: String {
            notRegular ? "not a regular file" : String(cString: strerror(code))
        }
    }

    /// The bytes of `path`; `followLinks: false` refuses a symbolic link (ELOOP).
    static func read(_ path: String, maxBytes: Int, followLinks: Bool = true)
        -> Result<[UInt8], Failure>
    {
        readWithFacts(path, maxBytes: maxBytes, followLinks: followLinks).map(\.bytes)
    }

    /// The bytes of `path` and what `fstat` said of the very file they were read from: a
    /// check of its owner and mode made by name could look at another file, put in its
    /// place in between (found by QA: the configuration's ownership check was raced).
    static func readWithFacts(_ path: String, maxBytes: Int, followLinks: Bool = true)
        -> Result<(bytes: [UInt8], facts: stat), Failure>
    {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return .failure(Failure(code: errno)) }
        defer { close(fd) }
        var facts = stat()
        guard fstat(fd, &facts) == 0 else { return .failure(Failure(code: errno)) }
        guard facts.st_mode & S_IFMT == S_IFREG else {
            let isDirectory = facts.st_mode & S_IFMT == S_IFDIR
            return .failure(Failure(code: isDirectory ? EISDIR : EINVAL, notRegular: !isDirectory))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(code: errno))
            }
            if count == 0 { break }
            guard bytes.count + count <= maxBytes else { return .failure(Failure(code: EFBIG)) }
            bytes += chunk[..<count]
        }
        return .success((bytes, facts))
    }
}
