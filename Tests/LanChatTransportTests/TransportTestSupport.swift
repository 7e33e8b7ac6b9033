import Foundation
import Glibc
import LanChatCore
import LanChatCrypto
import LanChatTransport
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// Timers generous enough for tests whose other side is test code: a test writes from Swift
/// concurrency, where the whole suite (hundreds of tests on 2 cores) can keep it waiting for
/// seconds, and shorter handshake or dead timers closed such connections before the test's
/// next write ("I/O on closed channel"). The tests that wait for a timer use
/// `handshakeTimerConfiguration()` or `keepaliveConfiguration()`.
func fastConfiguration() -> TransportConfiguration {
    var configuration = TransportConfiguration()
    configuration.handshakeTimeout = .seconds(30)
    configuration.handshakeReadIdle = .seconds(20)
    configuration.timerResolution = .milliseconds(20)
    configuration.keepaliveInterval = .seconds(10)
    configuration.deadTimeout = .seconds(40)
    configuration.connectTimeout = .seconds(2)
    return configuration
}

/// Keepalive and dead timers short enough to wait for: PING every 250 ms, dead after 1 s.
/// (100 / 400 ms made the keepalive tests fail on a machine at load 30 – 40: a stall of
/// 300 ms between two PINGs is not rare there.)
/// Both sides are transports, whose timers run on their event loops.
func keepaliveConfiguration() -> TransportConfiguration {
    var configuration = fastConfiguration()
    configuration.keepaliveInterval = .milliseconds(250)
    configuration.deadTimeout = .seconds(1)
    return configuration
}

/// Handshake timers short enough to wait for: 2 s of silence, 3 s in all.
func handshakeTimerConfiguration() -> TransportConfiguration {
    var configuration = fastConfiguration()
    configuration.handshakeTimeout = .seconds(3)
    configuration.handshakeReadIdle = .seconds(2)
    return configuration
}

let testLogger = Logger(label: "transport-test")

/// A `SessionDelegate` that records what happens and lets tests await it.
final class RecordingDelegate: SessionDelegate {
    enum Event: Sendable {
        case authorized(PeerKey)
        case opened(SessionHandle)
        case received(SessionHandle, [AppMessage])
        case closed(SessionHandle, SessionEnd)
    }

    private struct Waiter {
        let isSatisfied: @Sendable ([Event]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    let verdict: @Sendable (PeerKey) -> Result<Void, IdentityPolicy.Rejection>
    private let state = Mutex<(log: [Event], waiters: [Waiter])>(([], []))

    init(
        verdict: @escaping @Sendable (PeerKey) -> Result<Void, IdentityPolicy.Rejection> = { _ in
            .success(())
        }
    ) {
        self.verdict = verdict
    }

    /// Everything recorded so far (without waiting).
    var events: [Event] { state.withLock { $0.log } }

    private func record(_ event: Event) {
        let ready: [Waiter] = state.withLock { state in
            state.log.append(event)
            let log = state.log
            var ready: [Waiter] = []
            var waiting: [Waiter] = []
            for waiter in state.waiters {
                if waiter.isSatisfied(log) { ready.append(waiter) } else { waiting.append(waiter) }
            }
            state.waiters = waiting
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once `condition` holds for the events recorded so far (now or later).
    func wait(until condition: @escaping @Sendable ([Event]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state in
                if condition(state.log) { return true }
                state.waiters.append(Waiter(isSatisfied: condition, continuation: continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    func authorize(_ remote: PeerKey, connection: ConnectionInfo) async
        -> Result<Void, IdentityPolicy.Rejection>
    {
        record(.authorized(remote))
        return verdict(remote)
    }

    func sessionOpened(_ session: SessionHandle) async { record(.opened(session)) }

    func session(_ session: SessionHandle, received messages: [AppMessage]) async {
        record(.received(session, messages))
    }

    func sessionClosed(_ session: SessionHandle, end: SessionEnd) async {
        record(.closed(session, end))
    }

    /// Waits for the first event (past or future) that `match` accepts.
    func next<T: Sendable>(_ match: @escaping @Sendable (Event) -> T?) async -> T? {
        await wait { log in log.contains { match($0) != nil } }
        return events.lazy.compactMap(match).first
    }

    /// Waits until `count` application messages arrived, over any number of batches.
    func receivedMessages(count: Int) async -> [AppMessage] {
        await wait { log in Self.messages(in: log).count >= count }
        return Self.messages(in: events)
    }

    static func messages(in log: [Event]) -> [AppMessage] {
        log.flatMap { event -> [AppMessage] in
            if case .received(_, let messages) = event { messages } else { [] }
        }
    }

    /// Waits for the first session opened with this delegate.
    func openedSession() async -> SessionHandle? {
        await next { event in if case .opened(let session) = event { session } else { nil } }
    }

    var openedSessions: Int {
        events.filter { if case .opened = $0 { true } else { false } }.count
    }
}

/// A listener running in the background of a test, stopped by `stop()`.
struct RunningListener {
    let transport: Transport
    let listener: Listener
    let task: Task<Void, Never>
    let delegate: RecordingDelegate

    static func start(
        identity: IdentityKeyPair? = nil, delegate: RecordingDelegate = RecordingDelegate(),
        configuration: TransportConfiguration = fastConfiguration()
    ) async throws -> RunningListener {
        let transport = Transport(
            identity: try identity ?? IdentityKeyPair.generate(), configuration: configuration,
            logger: testLogger)
        let listener = try await transport.listen(host: "127.0.0.1", port: 0)
        let task = Task<Void, Never> { _ = try? await listener.run(delegate: delegate) }
        return RunningListener(
            transport: transport, listener: listener, task: task, delegate: delegate)
    }

    var endpoint: Endpoint { Endpoint(host: "127.0.0.1", port: listener.port) }

    func stop() async {
        task.cancel()
        await listener.close()
        _ = await task.value
    }
}

/// A plain TCP client for feeding a listener hand-made bytes.
final class RawConnection: Sendable {
    private let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    private init(channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) {
        self.channel = channel
    }

    static func connect(to endpoint: Endpoint) async throws -> RawConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: endpoint.host, port: Int(endpoint.port)) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return RawConnection(channel: channel)
    }

    /// Lets `conversation` read and write until it returns; then (with `readToEnd`) reads
    /// until the peer closes and returns everything received after the conversation, or
    /// (without) closes the connection at once, with no CLOSE frame.
    func run(
        readToEnd: Bool = true,
        _ conversation: (
            inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
            NIOAsyncChannelOutboundWriter<ByteBuffer>
        ) async throws -> Void
    ) async throws -> [UInt8] {
        try await channel.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            try await conversation(&iterator, outbound)
            var rest: [UInt8] = []
            while readToEnd, let chunk = try await iterator.next() {
                rest += Array(chunk.readableBytesView)
            }
            return rest
        }
    }
}

extension NIOAsyncChannelOutboundWriter<ByteBuffer> {
    func write(bytes: [UInt8]) async throws { try await write(ByteBuffer(bytes: bytes)) }
}

/// Reads until `count` bytes arrived (or the connection ended).
func read(
    _ count: Int, from iterator: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
    buffer: inout [UInt8]
) async throws -> [UInt8] {
    while buffer.count < count, let chunk = try await iterator.next() {
        buffer += Array(chunk.readableBytesView)
    }
    let taken = Array(buffer.prefix(count))
    buffer.removeFirst(min(count, buffer.count))
    return taken
}

/// The connected TCP sockets of this process with `port` at either end (the listener's own
/// socket left out), found through `/proc/self/fd`.
func connectedSockets(port: UInt16) -> [Int32] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.compactMap(Int32.init).filter { fd in
        var kind: Int32 = 0
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &kind, &size) == 0,
            kind == Int32(SOCK_STREAM.rawValue),
            getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 0
        else { return false }
        return [getsockname, getpeername].contains { read in
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(fd, $0, &length) }
            }
            guard result == 0, address.ss_family == sa_family_t(AF_INET) else { return false }
            let found = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
            }
            return UInt16(bigEndian: found) == port
        }
    }
}

/// An integer socket option of `fd`; nil when it cannot be read.
func socketOption(_ fd: Int32, level: Int32, _ name: Int32) -> Int32? {
    var value: Int32 = 0
    var size = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(fd, level, name, &value, &size) == 0 ? value : nil
}

/// Polls `condition` every millisecond, at most `timeout`, for state that announces no
/// change of its own (the listener's admission slots).
func until(
    _ what: String, timeout: Duration = .seconds(5), _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting: \(what)" }
}

/// A client transport dialling `server` (its key pinned), and the client's session once it
/// is open; the dial's task ends when the session does.
func dialOpened(_ server: RunningListener, configuration: TransportConfiguration) async throws
    -> (session: SessionHandle, dial: Task<Transport.DialOutcome, Never>)
{
    let client = Transport(
        identity: try IdentityKeyPair.generate(), configuration: configuration, logger: testLogger)
    let delegate = RecordingDelegate()
    let dial = Task {
        await client.dial(
            server.endpoint, expectation: .pinned(server.transport.identity.publicKey),
            delegate: delegate)
    }
    return (try #require(await delegate.openedSession()), dial)
}
