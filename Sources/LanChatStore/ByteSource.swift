import Glibc

/// Bytes to read at any offset: a file's, or an array's in tests. The page salvage
/// (`StorePages`) reads a damaged store page by page through it, so that a large store is
/// never read into memory whole.
struct ByteSource {
    let size: Int
    /// The `count` bytes at `offset`, fewer at the end; nil when they cannot be read.
    let read: (_ offset: Int, _ count: Int) -> [UInt8]?

    init(size: Int, read: @escaping (_ offset: Int, _ count: Int) -> [UInt8]?) {
        self.size = size
        self.read = read
    }

    init(_ bytes: [UInt8]) {
        size = bytes.count
        read = { offset, count in
            guard offset >= 0, count >= 0, offset <= bytes.count else { return nil }
            return Array(bytes[offset..<min(offset + count, bytes.count)])
        }
    }

    /// The regular file at `path`, open until the source is dropped; nil when there is none
    /// or it cannot be opened.
    static func file(_ path: String) -> ByteSource? {
        guard let file = ReadOnlyFile(path) else { return nil }
        return ByteSource(size: file.size) { offset, count in file.read(at: offset, count: count) }
    }
}

/// A file descriptor opened for reading, closed when the last reference goes.
private final class ReadOnlyFile {
    let descriptor: Int32
    let size: Int

    init?(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    func read(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return pread(descriptor, base + done, count - done, off_t(offset + done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            done += got
        }
        return Array(bytes[0..<done])
    }
}
