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
        return .success(fd)
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
}
