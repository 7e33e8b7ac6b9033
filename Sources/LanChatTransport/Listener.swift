import LanChatCore
import NIOCore
import NIOPosix
import Synchronization

/// A bound TCP listener. `run` accepts until its task is cancelled; every connection runs
/// in its own child task and is authenticated before the delegate hears of it.
public final class Listener: Sendable {
    /// The addresses actually bound (the port is the ephemeral one when 0 was asked).
    public let localAddress: Endpoint?
    private let server: NIOAsyncChannel<AcceptedConnection, Never>
    private let transport: Transport
    private let closedOnPurpose = Mutex(false)

    init(server: NIOAsyncChannel<AcceptedConnection, Never>, transport: Transport) {
        self.server = server
        self.transport = transport
        self.localAddress = Endpoint(server.channel.localAddress)
    }

    public var port: UInt16 { localAddress?.port ?? 0 }

    /// Accepts until cancelled or `close()`d (both end it normally); running connections
    /// end with it.
    public func run(delegate: any SessionDelegate) async throws {
        do {
            try await accept(delegate: delegate)
        } catch  where closedOnPurpose.withLock({ $0 }) {
            // The socket was closed under the accept loop by `close()`: a normal end.
        }
    }

    private func accept(delegate: any SessionDelegate) async throws {
        let transport = self.transport
        try await server.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { group in
                for try await accepted in inbound {
                    group.addTask {
                        let connection = ConnectionInfo(
                            role: .responder, remoteAddress: accepted.remote, expectation: nil)
                        _ = await transport.drive(
                            accepted.channel, connection: connection, delegate: delegate,
                            handshakeFinished: { failed in
                                transport.admission.release(accepted.admissionKey, failed: failed)
                            })
                    }
                }
            }
        }
    }

    /// Closes the listening socket so no new connection is accepted (running connections
    /// are not affected).
    public func close() async {
        closedOnPurpose.withLock { $0 = true }
        try? await server.channel.close()
    }
}

struct AcceptedConnection: Sendable {
    let channel: NIOAsyncChannel<SessionEvent, SessionCommand>
    let remote: Endpoint?
    let admissionKey: String
}

extension Transport {
    /// Binds the listener on `host` (`::` for every interface, IPv4 included) and `port`
    /// (0: an ephemeral port).
    public func listen(host: String, port: Int) async throws -> Listener {
        let asyncConfiguration = asyncChannelConfiguration
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { [logger] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptFailureLogger(logger: logger, what: "listener"))
                }
            }
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(
                .writeBufferWaterMark,
                value: .init(
                    low: configuration.writeBufferLowWaterMark,
                    high: configuration.writeBufferHighWaterMark)
            )
            .bind(host: host, port: port) {
                [self] channel -> EventLoopFuture<AcceptedConnection> in
                let remote = Endpoint(channel.remoteAddress)
                if case .refused(let interface) = arrivalScope.decide(local: channel.localAddress) {
                    refuseOutOfScope(channel, remote: remote, interface: interface)
                    return channel.eventLoop.makeFailedFuture(
                        TransportError(.admissionRefused, "not an allowed interface"))
                }
                let admissionKey =
                    remote.map { SourceAddress(host: $0.host).description } ?? "unknown"
                if let refusal = admission.admit(admissionKey) {
                    if let suppressed = refusalLog.shouldLog() {
                        logger.notice(
                            "refusing connections: \(refusal)",
                            metadata: [
                                "remote": "\(remote?.description ?? "?")",
                                "alsoRefused": "\(suppressed)",
                            ])
                    }
                    if let remote { refusedInboundContinuation.yield(remote.host) }
                    // NIO drops a failed child initializer's channel without closing it:
                    // close it here, or every refused connection keeps a descriptor.
                    channel.close(promise: nil)
                    return channel.eventLoop.makeFailedFuture(
                        TransportError(.admissionRefused, refusal.description))
                }
                return channel.eventLoop.makeCompletedFuture {
                    do {
                        try channel.pipeline.syncOperations.addHandler(
                            makeHandler(role: .responder))
                        return AcceptedConnection(
                            channel: try NIOAsyncChannel(
                                wrappingChannelSynchronously: channel,
                                configuration: asyncConfiguration),
                            remote: remote, admissionKey: admissionKey)
                    } catch {
                        admission.release(admissionKey, failed: false)
                        channel.close(promise: nil)
                        throw error
                    }
                }
            }
        return Listener(server: server, transport: self)
    }

    /// Closes a connection made to an address of an interface outside `--interface`, before
    /// any byte is read, and says so (throttled: a scan of that address is one line a second).
    private func refuseOutOfScope(_ channel: any Channel, remote: Endpoint?, interface: String?) {
        if let suppressed = outOfScopeLog.shouldLog() {
            let local = channel.localAddress.flatMap(ArrivalScope.Target.init)?.description ?? "?"
            logger.notice(
                """
                refusing a connection to \(local)\(interface.map { " on \($0)" } ?? ""): \
                not an address of the interfaces allowed (\(arrivalScope.interfaces.joined(separator: ",")))
                """,
                metadata: [
                    "remote": "\(remote?.description ?? "?")", "alsoRefused": "\(suppressed)",
                ])
        }
        // As for a refusal by admission: NIO drops a failed child initializer's channel
        // without closing it.
        channel.close(promise: nil)
    }
}
