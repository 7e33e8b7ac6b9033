import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Connects to a TCP address with a time limit and closes at once: is anything accepting?
/// lanchatd sees a connection that ends before its handshake, which it drops quietly.
enum PortProber {
    static func probe(_ target: ListeningAddress.Target, timeoutMilliseconds: Int32 = 2000)
        async -> PortProbe
    {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let failure = connectBlocking(target, timeout: timeoutMilliseconds)
                continuation.resume(returning: PortProbe(address: target.display, failure: failure))
            }
        }
    }

    /// nil when connected; else why not.
    private static func connectBlocking(_ target: ListeningAddress.Target, timeout: Int32)
        -> String?
    {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(target.host, String(target.port), &hints, &list) == 0,
            let info = list
        else { return "not an address" }
        defer { freeaddrinfo(list) }
        let fd = socket(
            info.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return nil }
        guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let deadline = monotonicMilliseconds() + Int64(timeout)
        while true {
            let remaining = deadline - monotonicMilliseconds()
            guard remaining > 0 else { return "timed out" }
            let ready = poll(&entry, 1, Int32(remaining))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return "timed out" }
            break
        }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
            return String(cString: strerror(errno))
        }
        return error == 0 ? nil : String(cString: strerror(error)).lowercased()
    }
}
