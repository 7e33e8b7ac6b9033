import Glibc
import LanChatControl
import Synchronization

/// One daemon per data directory (PRODUCT.md §2): an exclusive `flock` on
/// `<data dir>/lanchatd.lock`, holding the owner's PID for the error message. The kernel
/// releases the lock when the process dies, so a crash never leaves it stale.
final class DataDirectoryLock: Sendable {
    private let descriptor = Mutex<Int32?>(nil)

    private init(descriptor: Int32) {
        self.descriptor.withLock { $0 = descriptor }
    }

    /// Releases the lock (idempotent): the daemon has stopped using the directory.
    func release() {
        descriptor.withLock { current in
            if let open = current { close(open) }
            current = nil
        }
    }

    static func acquire(in directory: String) throws(DaemonError) -> DataDirectoryLock {
        let path = directory + "/" + DataDirectoryPath.lockFileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw .dataDirectory("cannot open \(path): \(errnoText())")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = readPID(descriptor)
            close(descriptor)
            throw .locked(
                "another lanchatd uses \(directory) (lock held by PID \(holder.map(String.init) ?? "unknown"))"
            )
        }
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return DataDirectoryLock(descriptor: descriptor)
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 31, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingWhitespace)
    }

    deinit {
        release()
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
