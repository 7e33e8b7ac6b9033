import Foundation

/// Runs blocking socket work on a thread of its own, never on a Swift-concurrency thread:
/// the cooperative pool has one thread per core (two here), and a test blocked in `poll(2)`
/// must not stall the other tests running beside it.
func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}

/// Throwing `offload`.
func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// A failed system call, with its errno text.
struct SocketError: Error, CustomStringConvertible {
    let description: String

    init(_ call: String, errno code: Int32 = errno) {
        description = "\(call): \(String(cString: strerror(code)))"
    }
}

/// What one bounded read saw.
enum ReadOutcome: Equatable, Sendable {
    case data([UInt8])
    /// The other side closed (EOF), or reset the connection.
    case closed
    /// Nothing arrived before the deadline.
    case timedOut
}

/// Reads at most `limit` bytes from `descriptor`, waiting at most `timeout` for the first.
func readSome(_ descriptor: Int32, limit: Int = 65536, timeout: Duration) -> ReadOutcome {
    let millis = Int32(
        clamping: timeout.components.seconds * 1000
            + timeout.components.attoseconds / 1_000_000_000_000_000)
    var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let ready = poll(&waiting, 1, millis)
    if ready == 0 { return .timedOut }
    if ready < 0 { return errno == EINTR ? .timedOut : .closed }
    var buffer = [UInt8](repeating: 0, count: limit)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, limit) }
    if count <= 0 { return .closed }  // 0: EOF; -1: ECONNRESET and friends
    return .data(Array(buffer[0..<count]))
}

/// Writes all of `bytes`, looping on short writes.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { raw in
            send(
                descriptor, raw.baseAddress.map { $0 + offset }, bytes.count - offset,
                Int32(MSG_NOSIGNAL))
        }
        if written < 0 {
            if errno == EINTR { continue }
            throw SocketError("send")
        }
        offset += written
    }
}

/// An IPv4 `sockaddr_in` for a dotted address and port.
func ipv4Address(_ host: String, port: UInt16) throws -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
        throw SocketError(description: "\(host) is not an IPv4 address")
    }
    return address
}

extension SocketError {
    init(description: String) { self.description = description }
}

/// Calls `body` with `address` as a `sockaddr` pointer and its length.
func withSocketAddress<A, R>(_ address: A, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R)
    -> R
{
    var copy = address
    return withUnsafePointer(to: &copy) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            body($0, socklen_t(MemoryLayout<A>.size))
        }
    }
}

/// The local port a socket is bound to.
func boundPort(_ descriptor: Int32) -> UInt16? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutablePointer(to: &storage) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            getsockname(descriptor, $0, &length)
        }
    }
    guard result == 0 else { return nil }
    switch Int32(storage.ss_family) {
    case AF_INET:
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
    case AF_INET6:
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin6_port)
            }
        }
    default:
        return nil
    }
}
