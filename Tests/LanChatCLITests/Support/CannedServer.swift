import Dispatch
import FoundationEssentials
import LanChatControl
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real Unix-socket server for the client tests, playing the daemon with canned answers.
///
/// Each accepted connection runs `script` on its own dispatch thread (blocking I/O there,
/// never on a Swift-concurrency thread). Every request line a script reads is also published
/// on `requests`, so a test can await "the daemon has received this" instead of sleeping.
final class CannedServer: Sendable {
    let directory: String
    let path: String
    let requests: AsyncStream<String>
    private let requestSink: AsyncStream<String>.Continuation
    private let listenFD: Int32
    private let accepted = Counter()
    private let stopped = Counter()
    private let listening = Counter()

    /// Number of connections accepted so far.
    var connectionCount: Int { accepted.value }

    /// `at`: the socket path of a server stopped before (a daemon started again on its
    /// socket); that server's directory stays its own.
    init(at reused: String? = nil, script: @escaping @Sendable (ServerConnection) -> Void) throws {
        directory = reused == nil ? try TemporaryDirectory.make() : ""
        path = reused ?? directory + "/d.sock"
        (requests, requestSink) = AsyncStream.makeStream(of: String.self)
        listenFD = try UnixListener.listen(path: path)
        let fd = listenFD
        let sink = requestSink
        let accepted = self.accepted
        // The accept loop owns the listening descriptor and closes it when accept fails
        // (after `stopListening` shut it down). Closed by `stop` instead, its number could be
        // reused by another test's server before this loop first called accept, which then
        // took that server's connections (a flaky test: its daemon never saw the request).
        DispatchQueue(label: "canned.accept").async {
            while true {
                let connectionFD = accept(fd, nil, nil)
                guard connectionFD >= 0 else {
                    if errno == EINTR { continue }
                    close(fd)
                    return
                }
                // Close-on-exec, as the listener: a process another test spawns must not keep
                // a connection open past our close (Glibc's module has no accept4).
                _ = fcntl(connectionFD, F_SETFD, FD_CLOEXEC)
                accepted.increment()
                let connection = ServerConnection(fd: connectionFD, sink: sink)
                DispatchQueue(label: "canned.connection").async {
                    script(connection)
                    connection.close()
                }
            }
        }
    }

    /// A server answering each request line with `reply(request)`, until the client
    /// closes its end.
    static func replying(_ reply: @escaping @Sendable (Request) -> String) throws -> CannedServer {
        try CannedServer { connection in
            while let line = connection.readLine() {
                connection.write(reply(Request(line: line)) + "\n")
            }
        }
    }

    /// Idempotent.
    func stop() {
        guard stopped.increment() == 1 else { return }
        stopListening()
        requestSink.finish()
        if !directory.isEmpty { rmdir(directory) }
    }

    /// No more connections, and no socket at `path` (a daemon gone); the connections
    /// accepted go on. Idempotent, as `stop`. The descriptor is shut down, which ends the
    /// accept loop, and closed by that loop.
    func stopListening() {
        guard listening.increment() == 1 else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))
        unlink(path)
    }

    deinit { stop() }
}

final class Counter: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }
    /// Returns the new value.
    @discardableResult
    func increment() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}

/// One accepted connection, used from its script's thread only.
final class ServerConnection: @unchecked Sendable {
    let fd: Int32
    private let sink: AsyncStream<String>.Continuation
    private var buffer: [UInt8] = []

    init(fd: Int32, sink: AsyncStream<String>.Continuation) {
        self.fd = fd
        self.sink = sink
    }

    /// The next request line without its newline; nil at end of stream.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                sink.yield(line)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    func write(_ text: String) {
        write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return }
            offset += written
        }
    }

    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}

/// A request line as the canned daemon sees it.
struct Request: Sendable {
    var line: String
    var id: RPCID?
    var method: String

    init(line: String) {
        self.line = line
        let head = try? JSONDecoder().decode(RPCRequestHead.self, from: Data(line.utf8))
        id = head?.id
        method = head?.method ?? ""
    }

    /// The request's params, decoded as `type`.
    func params<Params: Decodable>(_ type: Params.Type) throws -> Params? {
        try JSONDecoder().decode(RPCRequestParams<Params>.self, from: Data(line.utf8)).params
    }
}

/// Response lines as the daemon writes them.
enum Reply {
    static func result<Result: Codable>(_ request: Request, _ result: Result) -> String {
        encode(RPCResponse(id: request.id, result: result))
    }

    static func error(_ request: Request, _ error: ControlError) -> String {
        encode(RPCResponse<NoParams>(id: request.id, error: error))
    }

    static func encode<Result: Codable>(_ response: RPCResponse<Result>) -> String {
        let data = (try? ControlJSON.encoder().encode(response)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

enum UnixListener {
    struct Failure: Error {
        var step: String
        var code: Int32
    }

    /// A listening socket at `path`.
    static func listen(path: String) throws -> Int32 {
        let fd = try bound(path: path)
        guard Glibc.listen(fd, 64) == 0 else { throw Failure(step: "listen", code: errno) }
        return fd
    }

    /// A socket bound at `path` but not listening: connecting gives ECONNREFUSED, like the
    /// socket file a crashed daemon leaves behind.
    static func bound(path: String) throws -> Int32 {
        // Close-on-exec: tests run side by side and spawn processes (flock, lanchat, shells);
        // one spawned between our socket and our close kept it bound after the close (found
        // when `aRemovedSocketIsStillBoundWhileItsListenerLives` failed in a full run).
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(step: "socket", code: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw Failure(step: "bind", code: errno) }
        return fd
    }
}

enum TemporaryDirectory {
    /// A fresh directory under /tmp with a short name (socket paths must fit 107 bytes).
    static func make() throws -> String {
        var template = Array("/tmp/lanchat-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
        guard let made else { throw UnixListener.Failure(step: "mkdtemp", code: errno) }
        return made
    }
}
