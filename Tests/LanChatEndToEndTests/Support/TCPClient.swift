import Foundation

/// A raw TCP connection on loopback that a test drives byte by byte (the attacks of
/// PROTOCOL.md §7). It connects from a chosen source address in 127.0.0.0/8, so the
/// daemon's per-address handshake limits never count an attack against the legitimate
/// peers (which dial from 127.0.0.1), and so the daemon's log line names this connection.
///
/// Every call that may block runs on its own thread (`offload`). One task uses a client at
/// a time.
final class TCPClient: Sendable {
    let descriptor: Int32
    /// The source port, to find this connection in the daemon's log.
    let localPort: UInt16
    let source: String

    private init(descriptor: Int32, localPort: UInt16, source: String) {
        self.descriptor = descriptor
        self.localPort = localPort
        self.source = source
    }

    /// Connects from `source` (any port) to 127.0.0.1:`port`.
    static func connect(to port: UInt16, from source: String = "127.0.0.1") async throws
        -> TCPClient
    {
        try await offload {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw SocketError("socket") }
            do {
                let local = try ipv4Address(source, port: 0)
                guard withSocketAddress(local, { bind(descriptor, $0, $1) }) == 0 else {
                    throw SocketError("bind \(source)")
                }
                let remote = try ipv4Address("127.0.0.1", port: port)
                guard withSocketAddress(remote, { Glibc.connect(descriptor, $0, $1) }) == 0 else {
                    throw SocketError("connect 127.0.0.1:\(port)")
                }
                guard let localPort = boundPort(descriptor) else {
                    throw SocketError("getsockname")
                }
                return TCPClient(descriptor: descriptor, localPort: localPort, source: source)
            } catch {
                Glibc.close(descriptor)
                throw error
            }
        }
    }

    /// `source:port` as the daemon sees this connection.
    var localAddress: String { "\(source):\(localPort)" }

    func send(_ bytes: [UInt8]) async throws {
        let descriptor = self.descriptor
        try await offload { try writeAll(descriptor, bytes) }
    }

    /// Reads exactly `count` bytes, or what arrived before the connection closed or the
    /// deadline passed.
    func receive(exactly count: Int, timeout: Duration) async -> [UInt8] {
        let descriptor = self.descriptor
        return await offload {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            var received: [UInt8] = []
            while received.count < count {
                let left = deadline - clock.now
                guard left > .zero else { break }
                guard
                    case .data(let bytes) = readSome(
                        descriptor, limit: count - received.count, timeout: left)
                else { break }
                received += bytes
            }
            return received
        }
    }

    /// Waits for the other side to close the connection, collecting whatever it still
    /// sends; `closed` is false when the deadline passed first.
    func awaitClose(timeout: Duration) async -> (closed: Bool, received: [UInt8]) {
        let descriptor = self.descriptor
        return await offload {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            var received: [UInt8] = []
            while true {
                let left = deadline - clock.now
                guard left > .zero else { return (false, received) }
                switch readSome(descriptor, timeout: left) {
                case .data(let bytes): received += bytes
                case .closed: return (true, received)
                case .timedOut: return (false, received)
                }
            }
        }
    }

    func close() { Glibc.close(descriptor) }

    /// Waits until the other side has closed each of `clients` (EOF or reset), at most
    /// `timeout`; returns the indexes of those it closed. One thread polls them all.
    static func awaitClosed(_ clients: [TCPClient], timeout: Duration) async -> Set<Int> {
        let descriptors = clients.map(\.descriptor)
        return await offload {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            var closed: Set<Int> = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while closed.count < descriptors.count {
                let left = deadline - clock.now
                guard left > .zero else { break }
                let open = descriptors.indices.filter { !closed.contains($0) }
                var waiting = open.map {
                    pollfd(fd: descriptors[$0], events: Int16(POLLIN), revents: 0)
                }
                let millis = Int32(clamping: left.components.seconds * 1000 + 1)
                guard poll(&waiting, nfds_t(waiting.count), min(millis, 100)) >= 0 else { continue }
                for (slot, index) in open.enumerated() where waiting[slot].revents != 0 {
                    let count = buffer.withUnsafeMutableBytes {
                        recv(descriptors[index], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                    }
                    if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                        closed.insert(index)
                    }
                }
            }
            return closed
        }
    }
}

/// A TCP port that was free a moment ago: bound on `::` (dual stack, like lanchatd) with
/// port 0, read back and released. Only for a daemon whose port must be known before it
/// starts (two daemons that name each other with `--peer`).
func reserveFreePort() throws -> UInt16 {
    let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw SocketError("socket") }
    defer { close(descriptor) }
    var off: Int32 = 0
    setsockopt(
        descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_any
    guard withSocketAddress(address, { bind(descriptor, $0, $1) }) == 0 else {
        throw SocketError("bind [::]:0")
    }
    guard let port = boundPort(descriptor) else { throw SocketError("getsockname") }
    return port
}
