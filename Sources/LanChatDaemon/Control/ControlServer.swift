import FoundationEssentials
import Glibc
import LanChatControl
import Logging
import NIOCore
import NIOPosix

/// The control socket (PRODUCT.md §2, §5): a Unix stream socket, mode 0600 in a 0700
/// directory, newline-delimited JSON-RPC 2.0. Only the daemon's own uid may talk to it
/// (`SO_PEERCRED`). Requests on one connection are answered in order.
final class ControlServer: Sendable {
    let path: String
    private let server: NIOAsyncChannel<ControlConnection, Never>
    private let logger: Logger

    private init(path: String, server: NIOAsyncChannel<ControlConnection, Never>, logger: Logger) {
        self.path = path
        self.server = server
        self.logger = logger
    }

    /// Creates the socket's directory (0700) and binds the socket (0600). A stale socket file
    /// left by a crash is replaced; a live one (another daemon) is an error.
    static func bind(path: String, group: any EventLoopGroup, logger: Logger)
        async throws(DaemonError)
        -> ControlServer
    {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty {
            try PrivateDirectory.ensure(directory, purpose: "control socket directory")
        }
        if ControlSocketProbe.isLive(path) {
            throw DaemonError.socketUnavailable(
                "\(path) is in use by another lanchatd; stop it or pass another --socket")
        }
        unlink(path)
        let server: NIOAsyncChannel<ControlConnection, Never>
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                // `echo REQUEST | socat - UNIX-CONNECT:…` closes its side after writing: the
                // answer must still be written before the connection closes.
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .bind(unixDomainSocketPath: path) { channel -> EventLoopFuture<ControlConnection> in
                    // A failed initializer's channel is not closed by NIO: close it here.
                    peerUID(of: channel).flatMapThrowing { uid in
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(
                                ControlLineDecoder(maxLength: ControlAPI.maxRequestBytes)))
                        return ControlConnection(
                            channel: try NIOAsyncChannel(wrappingChannelSynchronously: channel),
                            peerUID: uid)
                    }.flatMapErrorThrowing { error in
                        channel.close(promise: nil)
                        throw error
                    }
                }
        } catch {
            throw DaemonError.socketUnavailable("cannot listen on \(path): \(error)")
        }
        guard chmod(path, 0o600) == 0 else {
            throw DaemonError.socketUnavailable(
                "cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
        return ControlServer(path: path, server: server, logger: logger)
    }

    /// Accepts connections until cancelled; then removes the socket file.
    func run(dispatcher: ControlDispatcher) async throws {
        let logger = self.logger
        defer { unlink(path) }
        try await server.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in inbound {
                    group.addTask {
                        await Self.serve(connection, dispatcher: dispatcher, logger: logger)
                    }
                }
            }
        }
    }

    private static func serve(
        _ connection: ControlConnection, dispatcher: ControlDispatcher, logger: Logger
    ) async {
        do {
            try await connection.channel.executeThenClose { inbound, outbound in
                for try await item in inbound {
                    var response: Data
                    if connection.peerUID != getuid() {
                        response = ControlDispatcher.encode(
                            RPCResponse<NoParams>(
                                id: nil,
                                error: .permissionDenied(
                                    "uid \(connection.peerUID) may not use this daemon's socket")))
                        response.append(UInt8(ascii: "\n"))
                        try await outbound.write(ByteBuffer(bytes: response))
                        return
                    }
                    switch item {
                    case .line(let line):
                        response = await dispatcher.respond(to: Data(line.readableBytesView))
                    case .tooLong:
                        response = ControlDispatcher.tooLongResponse()
                    }
                    response.append(UInt8(ascii: "\n"))
                    try await outbound.write(ByteBuffer(bytes: response))
                }
            }
        } catch {
            logger.debug("control connection ended: \(error)")
        }
    }
}

struct ControlConnection: Sendable {
    let channel: NIOAsyncChannel<ControlLine, ByteBuffer>
    let peerUID: uid_t
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

/// Whether something accepts connections on a Unix socket path (a live daemon), as opposed
/// to a stale file left by a crash.
enum ControlSocketProbe {
    static func isLive(_ path: String) -> Bool {
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return connected == 0
    }
}
