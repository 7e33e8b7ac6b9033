#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `sockaddr_un` for a socket path, built in one place for the client's connect, the
/// daemon's stale-socket probe and the systemd notify socket. A path that does not fit
/// `sun_path` (with its terminating NUL) has no address.
public struct UnixSocketAddress: Sendable {
    private var storage = sockaddr_un()
    /// The address length to pass with it.
    public let length: socklen_t

    /// The longest path `sun_path` holds, without its terminating NUL.
    public static var maxPathBytes: Int {
        MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    }

    /// - Parameter abstractMarker: a leading `@` names a socket in Linux's abstract namespace
    ///   (a leading NUL byte), as `$NOTIFY_SOCKET` may; the length then counts the name only.
    public init?(path: String, abstractMarker: Bool = false) {
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maxPathBytes else { return nil }
        let abstract = abstractMarker && bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        length =
            abstract
            ? socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
            : socklen_t(MemoryLayout<sockaddr_un>.size)
    }

    /// Calls `body` with the address as the generic `sockaddr` the socket calls take.
    public func withSockaddr<Result>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
    ) rethrows -> Result {
        var address = storage
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try body($0, length)
            }
        }
    }
}
