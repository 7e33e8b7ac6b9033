import Foundation
import Synchronization

/// A TCP relay on 127.0.0.1 that forwards every connection it accepts to 127.0.0.1:`target`
/// and records the bytes of both directions: what an attacker on the path between two
/// daemons would see. Each accepted connection is pumped by a thread of its own (blocking
/// `poll(2)`), so the relay never runs on a Swift-concurrency thread.
///
/// `stop()` shuts every socket down, which ends the threads; the sandbox's `defer` calls it.
final class RecordingRelay: Sendable {
    /// The bytes one relayed connection carried.
    struct Recording: Sendable {
        var clientToServer: [UInt8] = []
        var serverToClient: [UInt8] = []
    }

    let port: UInt16
    let target: UInt16
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var recordings: [Recording] = []
        /// Open sockets of live connections; a socket leaves this set under the lock
        /// right before it is closed, so `stop()` never touches a reused descriptor.
        var sockets: Set<Int32> = []
        var listenerOpen = true
        var stopped = false
    }

    init(forwardingTo target: UInt16) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw SocketError("socket") }
        var one: Int32 = 1
        setsockopt(
            listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let address = try ipv4Address("127.0.0.1", port: 0)
        guard withSocketAddress(address, { bind(listener, $0, $1) }) == 0,
            Glibc.listen(listener, 16) == 0, let port = boundPort(listener)
        else {
            let error = SocketError("bind/listen 127.0.0.1:0")
            close(listener)
            throw error
        }
        self.listener = listener
        self.port = port
        self.target = target
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// What each connection carried so far, in the order they were accepted.
    var recordings: [Recording] { state.withLock { $0.recordings } }

    /// All bytes of all connections, both directions.
    var allBytes: [UInt8] {
        recordings.reduce(into: []) { $0 += $1.clientToServer + $1.serverToClient }
    }

    func stop() {
        state.withLock { state in
            state.stopped = true
            if state.listenerOpen { shutdown(listener, Int32(SHUT_RDWR)) }
            for socket in state.sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        defer {
            state.withLock { state in
                state.listenerOpen = false
                close(listener)
            }
        }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            guard let upstream = connectUpstream() else {
                close(client)
                continue
            }
            let index = state.withLock { state -> Int? in
                guard !state.stopped else { return nil }
                state.sockets.formUnion([client, upstream])
                state.recordings.append(Recording())
                return state.recordings.count - 1
            }
            guard let index else {
                close(client)
                close(upstream)
                return
            }
            Thread.detachNewThread { [self] in pump(client: client, upstream: upstream, index) }
        }
    }

    private func connectUpstream() -> Int32? {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0, let address = try? ipv4Address("127.0.0.1", port: target),
            withSocketAddress(address, { connect(upstream, $0, $1) }) == 0
        else {
            if upstream >= 0 { close(upstream) }
            return nil
        }
        return upstream
    }

    /// Forwards both ways until either side closes, then closes both.
    private func pump(client: Int32, upstream: Int32, _ index: Int) {
        defer {
            state.withLock { state in
                state.sockets.subtract([client, upstream])
                close(client)
                close(upstream)
            }
        }
        var descriptors = [
            pollfd(fd: client, events: Int16(POLLIN), revents: 0),
            pollfd(fd: upstream, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            guard poll(&descriptors, 2, -1) > 0 else {
                if errno == EINTR { continue }
                return
            }
            for (slot, from, to) in [(0, client, upstream), (1, upstream, client)]
            where descriptors[slot].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                let chunk = Array(buffer[0..<count])
                state.withLock { state in
                    if slot == 0 {
                        state.recordings[index].clientToServer += chunk
                    } else {
                        state.recordings[index].serverToClient += chunk
                    }
                }
                guard (try? writeAll(to, chunk)) != nil else { return }
            }
        }
    }
}
