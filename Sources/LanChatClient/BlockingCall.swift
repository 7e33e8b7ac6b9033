import LanChatControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One call on a fresh connection, on the calling thread, for a caller that cannot await:
/// shell completion, which ArgumentParser runs synchronously while it parses. It blocks for
/// at most `timeout` waiting for the answer, and must not run on a Swift-concurrency thread
/// another task waits for. Nil when the daemon is not there, does not answer in time, or
/// answers with an error: completing never fails loudly.
package enum BlockingCall {
    package static func call<M: ControlMethod>(
        _ method: M.Type, _ params: M.Params, socketPath: String, timeout: Duration
    ) -> M.Result? {
        guard case .success(let fd) = UnixSocket.connect(path: socketPath),
            let line = try? ControlClient.encodeRequest(id: 1, method: M.name, params: params)
        else { return nil }
        defer { UnixSocket.close(fd) }
        let (seconds, attoseconds) = timeout.components
        var limit = timeval(
            tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        guard
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                == 0,
            UnixSocket.sendAll(fd, line) == nil
        else { return nil }
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while !received.contains(UInt8(ascii: "\n")), ContinuousClock.now < deadline {
            let count = chunk.withUnsafeMutableBytes { UnixSocket.receive(fd, into: $0) }
            guard count > 0 else { return nil }
            received += chunk[..<count]
        }
        guard let end = received.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return try? ResponseDecoding.result(M.Result.self, from: Array(received[..<end]))
    }
}
