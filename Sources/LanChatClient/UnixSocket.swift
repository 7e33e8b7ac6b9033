import LanChatControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin, blocking wrappers over the BSD socket calls the client needs. Every function here
/// may block and must therefore only run on the connection's dispatch queues, never on a
/// Swift-concurrency thread.
enum UnixSocket {
    /// The largest path `sockaddr_un.sun_path` holds, without its terminating NUL.
    static var maxPathBytes: Int { UnixSocketAddress.maxPathBytes }

    /// Opens a stream socket and connects it to `path`. Returns the descriptor, or the errno
    /// of the step that failed.
    static func connect(path: String) -> Result<Int32, ConnectFailure> {
        let pathBytes = Array(path.utf8)
        guard !pathBytes.isEmpty, pathBytes.count <= maxPathBytes else {
            return .failure(.pathTooLong(byteCount: pathBytes.count))
        }
        #if canImport(Glibc)
            let socketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let socketType = SOCK_STREAM
        #endif
        let fd = socket(AF_UNIX, socketType, 0)
        guard fd >= 0 else { return .failure(.system(errno: errno)) }

        guard let address = UnixSocketAddress(path: path) else {
            close(fd)
            return .failure(.pathTooLong(byteCount: pathBytes.count))
        }
        let result = address.withSockaddr { generic, length in
            // Not retried on EINTR: an interrupted connect goes on asynchronously, and a
            // Unix-socket connect does not wait anyway.
            systemConnect(fd, generic, length)
        }
        guard result == 0 else {
            let failure = errno
            close(fd)
            return .failure(.system(errno: failure))
        }
        // Only our own lanchatd: a socket another user serves (one who made
        // /tmp/lanchat-UID before us, say) would be told everything we send (found in review,
        // after QA's HOME-in-/tmp finding). Nothing is written before this check.
        if let owner = serverUID(fd), owner != geteuid() {
            close(fd)
            return .failure(.foreignServer(uid: owner))
        }
        return .success(fd)
    }

    /// `struct ucred` of <sys/socket.h>, which Swift's Glibc module does not export (it is
    /// behind _GNU_SOURCE): pid, uid, gid.
    private struct Credentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// The uid of the process that serves the connected socket `fd` (`SO_PEERCRED`); nil
    /// when the kernel does not say.
    private static func serverUID(_ fd: Int32) -> UInt32? {
        #if canImport(Glibc)
            var credentials = Credentials()
            var length = socklen_t(MemoryLayout<Credentials>.size)
            let status = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length)
            guard status == 0, length == MemoryLayout<Credentials>.size else { return nil }
            return credentials.uid
        #else
            return nil
        #endif
    }

    /// Writes every byte, retrying short writes and interrupts. `MSG_NOSIGNAL` keeps a peer
    /// that went away from killing the process with SIGPIPE; the caller gets EPIPE instead.
    /// Returns nil on success, else the errno.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                retryingOnInterrupt {
                    send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, noSignal)
                }
            }
            guard written > 0 else { return written < 0 ? errno : EPIPE }
            offset += written
        }
        return nil
    }

    /// Writes what the socket takes now, never blocking: the number of bytes written (0 when
    /// the socket is full), or nil on an error.
    static func sendWithoutBlocking(_ fd: Int32, _ bytes: [UInt8]) -> Int? {
        let written = bytes.withUnsafeBytes { raw in
            retryingOnInterrupt {
                send(fd, raw.baseAddress, raw.count, noSignal | Int32(MSG_DONTWAIT))
            }
        }
        if written >= 0 { return written }
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : nil
    }

    /// Reads what is available (blocking until at least one byte, end of stream or an
    /// error). Returns 0 at end of stream, a negative value on error with `errno` set.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        retryingOnInterrupt { recv(fd, buffer.baseAddress, buffer.count, 0) }
    }

    /// Wakes a thread blocked in `recv` on `fd` (it returns end of stream). Never blocks.
    static func shutdown(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        #else
            _ = Darwin.shutdown(fd, SHUT_RDWR)
        #endif
    }

    static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }

    #if canImport(Glibc)
        private static let noSignal = Int32(MSG_NOSIGNAL)
        private static let systemConnect = Glibc.connect
    #else
        private static let noSignal: Int32 = 0
        private static let systemConnect = Darwin.connect
    #endif

    private static func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}

/// Why a connection could not be made, before it is turned into a `ControlError`.
package enum ConnectFailure: Error, Equatable, Sendable {
    case pathTooLong(byteCount: Int)
    case system(errno: Int32)
    /// The socket is served by another user's process: never talked to.
    case foreignServer(uid: UInt32)
}
