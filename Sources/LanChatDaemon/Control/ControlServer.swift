import FoundationEssentials
import Glibc
import LanChatControl
import LanChatTransport
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The control socket (PRODUCT.md §2, §5): a Unix stream socket, mode 0600 in a 0700
/// directory, newline-delimited JSON-RPC 2.0. Only the daemon's own uid may talk to it
/// (`SO_PEERCRED`). Requests on one connection are answered in order.
final class ControlServer: Sendable {
    /// Control connections served at once (`man lanchatd`). One more closes the one idle
    /// for longest; only when all are busy is it answered with an error line and closed.
    /// So idle clients can neither use up the daemon's descriptors nor lock others out.
    static let maxConnections = 256

    let path: String
    private let server: NIOAsyncChannel<ControlClientConnection, Never>
    private let open: OpenConnections
    private let logger: Logger
    /// The socket file this server created: only that file is removed when it stops.
    private let boundFile: ControlSocketFile?
    /// Set by `drain()`: connections end after the answer they are writing.
    private let draining = Atomic(false)

    private init(
        path: String, server: NIOAsyncChannel<ControlClientConnection, Never>,
        open: OpenConnections, logger: Logger, boundFile: ControlSocketFile?
    ) {
        self.path = path
        self.server = server
        self.open = open
        self.logger = logger
        self.boundFile = boundFile
    }

    /// The daemon is stopping: no new connection is accepted, idle ones are closed, and a
    /// request being answered is answered first (a `send --wait` says it was cut short, with
    /// its ids), then its connection closes. Before, the stop cancelled the serving tasks: a
    /// message stored by a request in progress went unanswered, and a script sent it again
    /// (found by QA). `run` returns once every connection has ended.
    func drain() {
        draining.store(true, ordering: .releasing)
        server.channel.close(promise: nil)
        open.closeIdle()
    }

    /// Creates the socket's directory (0700) and binds the socket (0600). A stale socket file
    /// left by a crash is replaced; a live one (another daemon) is an error, and so is any
    /// other kind of file at the path, which is left untouched.
    ///
    /// With `activated`, the listening socket systemd passed (socket activation) is served
    /// instead: systemd made the file and its directory, and keeps them when we stop.
    static func inUseText(_ path: String) -> String {
        "\(path) is in use by another lanchatd; stop it or pass another --socket"
    }

    static func bind(
        path: String, group: any EventLoopGroup, logger: Logger,
        activated: ActivatedSocket? = nil
    ) async throws(DaemonError) -> ControlServer {
        if let activated {
            return try await serve(activated, path: path, group: group, logger: logger)
        }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty {
            try PrivateDirectory.ensureForSocket(directory)
        }
        switch ControlSocketFile.existing(at: path) {
        case .none:
            break
        case .some(let file) where !file.isSocket:
            throw DaemonError.socketUnavailable(
                "\(path) exists and is not a socket; lanchatd does not replace it "
                    + "(remove it or pass another --socket)")
        case .some:
            // Another user's socket, live or not, is theirs: neither replaceable nor another
            // lanchatd of ours (found by QA: "Address already in use", or "another lanchatd").
            var owner = stat()
            if lstat(path, &owner) == 0, owner.st_uid != geteuid() {
                throw DaemonError.socketUnavailable(
                    "\(path) is a socket of uid \(owner.st_uid), another user, which lanchatd "
                        + "does not replace; pass another --socket")
            }
            if ControlSocketProbe.isLive(path) {
                throw DaemonError.socketUnavailable(inUseText(path))
            }
            unlink(path)  // a stale socket left by a crash
        }
        let server: NIOAsyncChannel<ControlClientConnection, Never>
        let open = OpenConnections(limit: maxConnections)
        do {
            server = try await bootstrap(group: group, logger: logger)
                .bind(unixDomainSocketPath: path) { channel in
                    accepted(channel, open: open)
                }
        } catch {
            throw DaemonError.socketUnavailable(
                "cannot listen on \(path): \(systemErrorText(error))")
        }
        guard chmod(path, 0o600) == 0 else {
            throw DaemonError.socketUnavailable(
                "cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
        return ControlServer(
            path: path, server: server, open: open, logger: logger,
            boundFile: ControlSocketFile.existing(at: path))
    }

    /// Serves the socket systemd listens on; its file is systemd's (never removed here).
    private static func serve(
        _ activated: ActivatedSocket, path: String, group: any EventLoopGroup, logger: Logger
    ) async throws(DaemonError) -> ControlServer {
        let server: NIOAsyncChannel<ControlClientConnection, Never>
        let open = OpenConnections(limit: maxConnections)
        do {
            server = try await bootstrap(group: group, logger: logger)
                .bind(activated.descriptor) { channel in accepted(channel, open: open) }
        } catch {
            throw DaemonError.socketUnavailable(
                "cannot serve the control socket systemd passed (fd \(activated.descriptor)): \(error)"
            )
        }
        return ControlServer(
            path: activated.path ?? path, server: server, open: open, logger: logger,
            boundFile: nil)
    }

    private static func bootstrap(group: any EventLoopGroup, logger: Logger) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptFailureLogger(logger: logger, what: "control socket"))
                }
            }
            // `echo REQUEST | socat - UNIX-CONNECT:…` closes its side after writing: the
            // answer must still be written before the connection closes.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // A 1 000-message `send` answer is some 350 KB, more than the default socket
            // buffer (208 KiB): the rest waited for the client to read, a few wake-ups each
            // way. The kernel takes the memory only while the client is behind.
            .childChannelOption(.socketOption(.so_sndbuf), value: 1 << 20)
    }

    private static func accepted(_ channel: any Channel, open: OpenConnections)
        -> EventLoopFuture<ControlClientConnection>
    {
        // A failed initializer's channel is not closed by NIO: close it here.
        peerUID(of: channel).flatMapThrowing { uid in
            let slot = open.take(for: channel)
            try channel.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(
                    ControlLineDecoder(maxLength: ControlAPI.maxRequestBytes)))
            if let slot {
                try channel.pipeline.syncOperations.addHandler(InputEndWatcher(slot: slot))
            }
            return ControlClientConnection(
                channel: try NIOAsyncChannel(wrappingChannelSynchronously: channel),
                peerUID: uid, slot: slot)
        }.flatMapErrorThrowing { error in
            channel.close(promise: nil)
            throw error
        }
    }

    /// Accepts connections until cancelled; then removes the socket file, unless something
    /// else has taken its place meanwhile.
    func run(dispatcher: ControlDispatcher) async throws {
        let logger = self.logger
        defer {
            if let boundFile, ControlSocketFile.existing(at: path) == boundFile { unlink(path) }
        }
        let draining: @Sendable () -> Bool = { [self] in self.draining.load(ordering: .acquiring) }
        try await server.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in inbound {
                    group.addTask {
                        await Self.serve(
                            connection, dispatcher: dispatcher, draining: draining, logger: logger)
                    }
                }
            }
        }
    }

    private static func serve(
        _ connection: ControlClientConnection, dispatcher: ControlDispatcher,
        draining: @escaping @Sendable () -> Bool, logger: Logger
    ) async {
        defer { connection.slot?.release() }
        do {
            try await connection.channel.executeThenClose { inbound, outbound in
                guard connection.slot != nil else {
                    try await outbound.write(
                        errorLine(
                            .unavailable(
                                "too many control connections (\(maxConnections)) busy; "
                                    + "retry later")))
                    return
                }
                let reader = InboundLines(inbound.makeAsyncIterator())
                while let item = try await reader.next() {
                    var response: Data
                    if connection.peerUID != getuid() {
                        try await outbound.write(
                            errorLine(
                                .permissionDenied(
                                    "uid \(connection.peerUID) may not use this daemon's socket")))
                        return
                    }
                    // Closed for the stop meanwhile: not run, as its answer could not be written.
                    guard connection.slot?.busy() != false else { return }
                    defer { connection.slot?.idle() }
                    switch item {
                    case .line(let line):
                        switch dispatcher.route(Data(line.readableBytesView)) {
                        case .single(let answer):
                            response = await answer()
                        case .stream(let open):
                            switch await open() {
                            case .refused(let refusal):
                                // Refused before it streamed: an answer like any other.
                                response = refusal
                            case .opened(let first, let run):
                                let writer = ControlStreamWriter { line in
                                    var line = line
                                    line.append(UInt8(ascii: "\n"))
                                    try await outbound.write(ByteBuffer(bytes: line))
                                }
                                try await writer.write(first)
                                // An opened stream owns its connection to the end, and ends
                                // with its client, or as the daemon stops (a client such as
                                // `lanchat watch` reconnects and resumes).
                                await cancelWhenGracefulShutdown {
                                    await Self.untilClientLeaves(reader, writer: writer) {
                                        await run(writer)
                                    }
                                }
                                return
                            }
                        }
                    case .tooLong:
                        response = ControlDispatcher.tooLongResponse()
                    }
                    response.append(UInt8(ascii: "\n"))
                    try await outbound.write(ByteBuffer(bytes: response))
                    if draining() { return }
                }
            }
        } catch {
            logger.debug("control connection ended: \(error)")
        }
    }

    /// The line a connection is sent before the daemon closes it unasked (refused, or closed to
    /// make room): an error with a null id, since it answers no request.
    static func errorLine(_ error: ControlError) -> ByteBuffer {
        var line = ControlDispatcher.encode(RPCResponse<NoParams>(id: nil, error: error))
        line.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: line)
    }

    /// Runs a stream (`watch`) while reading its connection: a stream may go on for days, and
    /// must end when its client does, not at its next write. A request the client sends
    /// meanwhile is answered with an error that says to use another connection, and the
    /// stream goes on: ending it silently would leave the client to guess why its events
    /// stopped. The client's end (or a read error) ends the stream; the stream's end ends the
    /// reading.
    private static func untilClientLeaves(
        _ reader: InboundLines, writer: ControlStreamWriter,
        _ stream: @escaping @Sendable () async -> Void
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await stream() }
            group.addTask {
                while let item = try? await reader.next() {
                    let refusal =
                        switch item {
                        case .line(let line):
                            ControlDispatcher.refuseWhileStreaming(Data(line.readableBytesView))
                        case .tooLong: ControlDispatcher.tooLongResponse()
                        }
                    do { try await writer.write(refusal) } catch { return }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}

/// The request lines of one connection, read by one task at a time: the serving loop, or,
/// while a request is being answered, the watcher of `untilClientLeaves`.
final class InboundLines: @unchecked Sendable {
    private var iterator: NIOAsyncChannelInboundStream<ControlLine>.AsyncIterator

    init(_ iterator: NIOAsyncChannelInboundStream<ControlLine>.AsyncIterator) {
        self.iterator = iterator
    }

    func next() async throws -> ControlLine? {
        try await iterator.next()
    }
}

/// One accepted connection from a `lanchat` client (the client's own side is
/// `LanChatClient.ControlConnection`), with the caller's uid from `SO_PEERCRED`.
struct ControlClientConnection: Sendable {
    let channel: NIOAsyncChannel<ControlLine, ByteBuffer>
    let peerUID: uid_t
    /// Nil when `ControlServer.maxConnections` were already open: it is refused.
    let slot: OpenConnections.Slot?
}

/// `struct ucred` of <sys/socket.h>, which Swift's Glibc module does not export (it is
/// behind _GNU_SOURCE): pid, uid, gid as 32-bit integers.
private struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// The uid of the process on the other end of a Unix socket (`SO_PEERCRED`).
private func peerUID(of channel: any Channel) -> EventLoopFuture<uid_t> {
    guard let provider = channel as? any SocketOptionProvider else {
        return channel.eventLoop.makeFailedFuture(
            DaemonError.socketUnavailable("no peer credentials on the control socket"))
    }
    let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
        level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
    return future.map { $0.uid }
}

/// What `lstat` says about the file at the control socket path: enough to tell a socket
/// from anything else, and our own socket from one that replaced it.
struct ControlSocketFile: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
    let isSocket: Bool

    /// The file at `path` (a symbolic link is not followed), or nil when there is none.
    static func existing(at path: String) -> ControlSocketFile? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return ControlSocketFile(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            isSocket: info.st_mode & S_IFMT == S_IFSOCK)
    }
}

/// Whether something accepts connections on a Unix socket path (a live daemon), as opposed
/// to a stale file left by a crash.
enum ControlSocketProbe {
    static func isLive(_ path: String) -> Bool {
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard let address = UnixSocketAddress(path: path) else { return false }
        let connected = address.withSockaddr { connect(descriptor, $0, $1) }
        return connected == 0
    }
}
