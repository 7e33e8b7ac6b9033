import Glibc
import LanChatCore
import LanChatCrypto
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A node's TCP side: the listener and the dialler, both producing authenticated sessions
/// that are handed to a `SessionDelegate` (the daemon). One connection is one task; it
/// lives as long as the TCP connection and ends with `SessionDelegate.sessionClosed`.
public final class Transport: Sendable {
    public let identity: IdentityKeyPair
    public let configuration: TransportConfiguration
    let group: any EventLoopGroup
    let logger: Logger
    let admission: AdmissionControl
    let dialBudget: DialBudget
    /// A flood of refused connections logs one line a second, not one line each.
    let refusalLog = LogThrottle(interval: .seconds(1))
    /// A flood of failed handshakes logs one line per address every 10 s, with counts.
    let failureLog = Mutex(FailureLogThrottle())
    /// Addresses whose inbound connections admission refused (§4.6), for the daemon's
    /// dialler: a known peer refused while strangers flood us is dialled back instead. The
    /// newest few are kept; a consumer that falls behind misses only older ones.
    public let refusedInbound: AsyncStream<String>
    let refusedInboundContinuation: AsyncStream<String>.Continuation
    /// The interfaces whose addresses take inbound connections (`--interface`); the daemon
    /// replaces its list on reload.
    public let arrivalScope: ArrivalScope
    /// Connections to an address outside the scope log one line a second, not one line each.
    let outOfScopeLog = LogThrottle(interval: .seconds(1))

    public init(
        identity: IdentityKeyPair, configuration: TransportConfiguration = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        arrivalScope: ArrivalScope = ArrivalScope(), logger: Logger
    ) {
        self.identity = identity
        self.arrivalScope = arrivalScope
        self.configuration = configuration
        self.group = group
        self.logger = logger
        self.admission = AdmissionControl(
            limits: .init(
                maxPending: configuration.maxPendingHandshakes,
                maxPendingPerAddress: configuration.maxPendingHandshakesPerAddress,
                burst: configuration.connectionBurstPerAddress,
                refillInterval: configuration.connectionRefillInterval,
                failuresBeforePenalty: configuration.failuresBeforePenalty,
                failureWindow: configuration.failureWindow,
                firstPenalty: configuration.firstPenalty,
                longestPenalty: configuration.longestPenalty))
        self.dialBudget = DialBudget(limit: configuration.maxPendingDials)
        (refusedInbound, refusedInboundContinuation) = AsyncStream.makeStream(
            of: String.self, bufferingPolicy: .bufferingNewest(64))
    }

    var asyncChannelConfiguration: NIOAsyncChannel<SessionEvent, SessionCommand>.Configuration {
        // A few batches of read-ahead; past that the socket is not read (backpressure).
        .init(backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8))
    }

    func makeHandler(role: HandshakeRole) -> SecureSessionHandler {
        SecureSessionHandler(role: role, identity: identity, configuration: configuration)
    }

    /// The outcome of one outbound connection attempt, returned when it is over.
    public enum DialOutcome: Sendable {
        case connectFailed(TransportError)
        case handshakeFailed(TransportError)
        case identityRejected(IdentityPolicy.Rejection)
        case sessionEnded(remoteKey: PeerKey, lifetime: Duration, end: SessionEnd)
    }

    /// Connects to `endpoint`, authenticates, and runs the session until it ends.
    public func dial(
        _ endpoint: Endpoint, expectation: IdentityPolicy.Expectation?,
        delegate: any SessionDelegate
    ) async -> DialOutcome {
        guard let slot = dialBudget.take() else {
            return .connectFailed(
                TransportError(.connectFailed, "too many outbound handshakes in progress"))
        }
        defer { slot.release() }
        let configuration = asyncChannelConfiguration
        let initializer:
            @Sendable (any Channel) -> EventLoopFuture<
                NIOAsyncChannel<SessionEvent, SessionCommand>
            > = { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(makeHandler(role: .initiator))
                    return try NIOAsyncChannel(
                        wrappingChannelSynchronously: channel, configuration: configuration)
                }
            }
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(self.configuration.connectTimeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(
                .writeBufferWaterMark,
                value: .init(
                    low: self.configuration.writeBufferLowWaterMark,
                    high: self.configuration.writeBufferHighWaterMark))
        let channel: NIOAsyncChannel<SessionEvent, SessionCommand>
        do {
            if endpoint.scope != nil {
                channel = try await bootstrap.connect(
                    to: try endpoint.scopedSocketAddress(), channelInitializer: initializer)
            } else {
                channel = try await bootstrap.connect(
                    host: endpoint.host, port: Int(endpoint.port), channelInitializer: initializer)
            }
        } catch {
            return .connectFailed(
                TransportError(
                    .connectFailed,
                    "cannot connect to \(endpoint): \(Self.connectErrorText(error))"))
        }
        let connection = ConnectionInfo(
            role: .initiator, remoteAddress: endpoint, expectation: expectation)
        return await drive(
            channel, connection: connection, delegate: delegate,
            handshakeFinished: { _ in slot.release() })
    }

    /// Runs one connection: the identity decision, then the session, then the end.
    func drive(
        _ channel: NIOAsyncChannel<SessionEvent, SessionCommand>, connection: ConnectionInfo,
        delegate: any SessionDelegate,
        handshakeFinished: @Sendable (_ failed: Bool) -> Void = { _ in }
    ) async -> DialOutcome {
        var logger = self.logger
        logger[metadataKey: "remote"] = "\(connection.remoteAddress?.description ?? "?")"
        let state = ConnectionState()
        do {
            try await channel.executeThenClose { inbound, outbound in
                for try await event in inbound {
                    switch event {
                    case .identityCheck(let remote):
                        let verdict = await delegate.authorize(remote, connection: connection)
                        if case .failure(let rejection) = verdict { state.rejection = rejection }
                        try await outbound.write(.resolveIdentity(accept: state.rejection == nil))
                    case .established(let established):
                        let info =
                            connection.role == .initiator
                            ? established.with(remoteAddress: connection.remoteAddress)
                            : established
                        handshakeFinished(false)
                        state.handshakeDone = true
                        let session = SessionHandle(
                            info: info, outbound: outbound, channel: channel.channel)
                        state.session = session
                        logger.debug(
                            "session established",
                            metadata: [
                                "peer": "\(Fingerprint.keyTag(info.remoteKey))",
                                "session": "\(info.sessionTag)",
                            ])
                        await delegate.sessionOpened(session)
                    case .messages(let messages):
                        guard let session = state.session else { continue }
                        await delegate.session(session, received: messages)
                    case .closedByPeer(let reason):
                        state.end = .closedByPeer(reason)
                    }
                }
            }
        } catch {
            state.error =
                error as? TransportError
                ?? TransportError(.channelFailed, "connection failed: \(error)")
        }
        // A handshake cut short because we are stopping is not the remote's failure, and a
        // connection that never sent a byte (a port probe) cost us no handshake: neither
        // counts towards the remote's penalty (PROTOCOL.md §4.6), nor is it logged as one.
        // Nor does a blocked key's: it proved who it is, and the penalty is the address's,
        // which other users of that host share (found by QA: a blocked user's redials got
        // another user on the same host refused). The dialler's own backoff paces it.
        let probe = state.error?.kind == .closedUnused
        let blockedKey = state.rejection == .blocked
        if !state.handshakeDone {
            handshakeFinished(!Task.isCancelled && !probe && !blockedKey)
        }
        guard let session = state.session else {
            if let rejection = state.rejection { return .identityRejected(rejection) }
            let error =
                state.error
                ?? TransportError(.handshakeFailed, "connection closed during the handshake")
            if probe {
                logger.debug("\(error.description)")
            } else if !Task.isCancelled {
                logFailedHandshake(error, from: connection, logger: logger)
            }
            return .handshakeFailed(error)
        }
        let end: SessionEnd =
            if let local = session.closedLocallyWith {
                .closedLocally(local)
            } else if let byPeer = state.end {
                byPeer
            } else if Task.isCancelled {
                .abandoned
            } else {
                .failed(
                    state.error
                        ?? TransportError(.connectionLost, "connection lost, possibly truncated"))
            }
        await delegate.sessionClosed(session, end: end)
        return .sessionEnded(
            remoteKey: session.remoteKey, lifetime: session.establishedAt.duration(to: .now),
            end: end)
    }
}

extension Transport {
    /// Logs what `logFailedHandshake` held back from addresses that have not failed again
    /// since: "handshake failed 57 more times from 10.0.0.5 in the last 12 s". The daemon
    /// calls it every few seconds.
    public func logHeldBackHandshakeFailures(now: ContinuousClock.Instant = .now) {
        let due = failureLog.withLock { $0.heldBackDue(at: now) }
        for entry in due {
            logger.info(
                "\(FailureLogThrottle.summary(heldBack: entry.heldBack, since: entry.since, address: entry.address))"
            )
        }
    }

    /// One line per failure, always starting "handshake failed" (some descriptions already
    /// do), but at most one per remote address every 10 s: the next one says how many were
    /// held back.
    fileprivate func logFailedHandshake(
        _ error: TransportError, from connection: ConnectionInfo, logger: Logger,
        now: ContinuousClock.Instant = .now
    ) {
        let address = connection.remoteAddress?.host ?? "?"
        let decision = failureLog.withLock { $0.record(address, at: now) }
        guard case .log(let heldBack, let since) = decision else { return }
        let text = error.description
        let line = text.hasPrefix("handshake failed") ? text : "handshake failed: " + text
        logger.info(
            "\(line)\(FailureLogThrottle.suffix(heldBack: heldBack, since: since, address: address))"
        )
    }
}

/// Mutable facts of one connection, touched only by its own task.
private final class ConnectionState: @unchecked Sendable {
    var session: SessionHandle?
    var rejection: IdentityPolicy.Rejection?
    var end: SessionEnd?
    var error: TransportError?
    var handshakeDone = false
}

extension Endpoint {
    /// A `SocketAddress` for a scoped IPv6 literal (`fe80::1%eth0`): NIO's parser does not
    /// take a scope, so the interface index is set by hand.
    func scopedSocketAddress() throws -> SocketAddress {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
            throw TransportError(.connectFailed, "\(host) is not an IPv6 address")
        }
        let index = scope.map { if_nametoindex($0) } ?? 0
        guard index != 0 else {
            throw TransportError(.connectFailed, "unknown interface \(scope ?? "")")
        }
        address.sin6_scope_id = index
        return SocketAddress(address, host: host)
    }
}

extension Transport {
    /// Why a connect failed, in the system's words ("Connection refused"): NIO's own
    /// description wraps it in type names and an unbalanced "(errno: 111))", which the
    /// daemon's "cannot reach" log line quoted whole (found by QA).
    static func connectErrorText(_ error: any Error) -> String {
        var innermost = error
        if let connection = error as? NIOConnectionError,
            let first = connection.connectionErrors.first
        {
            innermost = first.error
        }
        if let io = innermost as? IOError { return String(cString: strerror(io.errnoCode)) }
        if case NIOCore.ChannelError.connectTimeout = innermost { return "timed out" }
        return "\(innermost)"
    }
}
