import Glibc
import LanChatCore
import LanChatCrypto
import NIOCore

// NIO has its own ChannelError and ChannelEvent; these are the secure channel's.
typealias WireChannelError = LanChatCore.ChannelError
typealias WireChannelEvent = LanChatCore.ChannelEvent

/// One TCP connection's byte-level protocol, on its event loop: the Noise XX handshake
/// (including the identity decision, asked of the async side), then secretstream framing,
/// fragment reassembly, the application codec, PING/PONG, keepalive and the dead timeout.
///
/// Ownership: NIO calls every method on the channel's event loop, so the move-only secret
/// owners (`ChannelHandshake`, `FrameSealer`, `FrameOpener`) live here unshared and are
/// dropped (wiped) when the connection ends. The async side sees only `SessionEvent`s and
/// sends `SessionCommand`s; errors reach it through `errorCaught` as `TransportError`.
final class SecureSessionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = SessionEvent
    typealias OutboundIn = SessionCommand
    typealias OutboundOut = ByteBuffer

    enum Phase: Equatable {
        case idle, handshaking, established, closed
    }

    let role: HandshakeRole
    let configuration: TransportConfiguration
    private(set) var phase: Phase = .idle
    private var handshake: ChannelHandshake?
    private var sealer: FrameSealer?
    private var opener: FrameOpener?
    private var timer: RepeatedTask?
    private var startedAt = NIODeadline.now()
    private var lastRead = NIODeadline.now()
    /// Since when the pipeline has been asking for a read that nothing has answered; nil while
    /// no read is asked for. The daemon's consumer holds reads back (NIOAsyncChannel's
    /// backpressure) while it is busy, e.g. storing behind a slow disk: the peer is not silent
    /// then, we are not listening, and the dead timeout must not count that time.
    private var readAskedSince: NIODeadline? = .now()
    private var lastWrite = NIODeadline.now()
    private var pongBudget: PongBudget
    /// Application messages decoded during the current read cycle.
    private var batch: [AppMessage] = []
    private var scratch: [UInt8] = []
    private var closeReceived = false
    private var failed = false
    /// Whether the remote has sent anything at all (`TransportError.Kind.closedUnused`).
    private var receivedAny = false

    init(role: HandshakeRole, identity: IdentityKeyPair, configuration: TransportConfiguration) {
        self.role = role
        self.configuration = configuration
        self.handshake = ChannelHandshake(
            role: role, identity: identity, configuration: .announcing(Capabilities.supported))
        self.pongBudget = PongBudget(perSecond: configuration.pongsPerSecond)
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { activate(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        activate(context: context)
        context.fireChannelActive()
    }

    private func activate(context: ChannelHandlerContext) {
        guard phase == .idle else { return }
        phase = .handshaking
        startedAt = .now()
        lastRead = startedAt
        lastWrite = startedAt
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(
            initialDelay: configuration.timerResolution, delay: configuration.timerResolution
        ) { _ in
            let (handler, context) = loopBound.value
            handler.timerFired(context: context)
        }
        // Both roles start the machine; only the initiator has something to send.
        if var machine = handshake.take() {
            let step = machine.start()
            handshake = consume machine
            handle(step, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if !failed && !closeReceived {
            switch phase {
            case .idle, .handshaking:
                context.fireErrorCaught(
                    role == .responder && !receivedAny
                        ? TransportError(.closedUnused, "connection closed before sending anything")
                        : TransportError(.handshakeFailed, "connection closed during the handshake")
                )
            case .established:
                if var reader = opener.take() {
                    do {
                        try reader.endOfInput()
                    } catch {
                        context.fireErrorCaught(TransportError.channel(error))
                    }
                }
            case .closed:
                break
            }
        }
        phase = .closed
        wipe()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Socket errors (e.g. ECONNRESET) end the connection; report them once.
        guard !failed else { return }
        failed = true
        context.fireErrorCaught(error as? TransportError ?? Self.socketError(error))
        context.close(promise: nil)
    }

    /// A socket's error in the system's words (found by QA: NIO's own text, "read(descriptor:
    /// pointer:size:): Connection reset by peer) (errno: 104)", reached the log); a reset
    /// is a connection lost, as an end without CLOSE is (PROTOCOL.md §4.4).
    static func socketError(_ error: any Error) -> TransportError {
        guard let ioError = error as? IOError else {
            return TransportError(.channelFailed, "socket error: \(error)")
        }
        if ioError.errnoCode == ECONNRESET {
            return TransportError(
                .connectionLost, "connection lost (reset by the peer), possibly truncated")
        }
        return TransportError(
            .channelFailed, "socket error: " + String(cString: strerror(ioError.errnoCode)))
    }

    private func wipe() {
        handshake = nil
        sealer = nil
        opener = nil
        batch = []
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard phase == .handshaking || phase == .established, !failed else { return }
        let buffer = unwrapInboundIn(data)
        lastRead = .now()
        receivedAny = true
        if phase == .handshaking {
            guard var machine = handshake.take() else { return }
            // Handshake messages are small; a copy keeps the move-only step out of a closure.
            let step = machine.receive(Array(buffer.readableBytesView))
            handshake = consume machine
            handle(step, context: context)
        } else {
            buffer.withUnsafeReadableBytes { bytes in
                open(bytes, context: context)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readAskedSince = nil
        deliverBatch(context: context)
        context.fireChannelReadComplete()
        // Closed by us: what the peer still sends is read (and dropped) to its end.
        if phase == .closed, context.channel.isActive { context.read() }
    }

    func read(context: ChannelHandlerContext) {
        if readAskedSince == nil { readAskedSince = .now() }
        context.read()
    }

    private func deliverBatch(context: ChannelHandlerContext) {
        guard !batch.isEmpty else { return }
        let messages = batch
        batch = []
        context.fireChannelRead(wrapInboundOut(.messages(messages)))
    }

    /// Decrypts what arrived and turns it into application messages, PONGs or the end.
    private func open(_ bytes: UnsafeRawBufferPointer, context: ChannelHandlerContext) {
        guard var reader = opener.take() else { return }
        var events: [WireChannelEvent] = []
        let outcome = Result { () throws(WireChannelError) in
            try reader.receive(bytes, into: &events)
        }
        opener = consume reader
        for event in events {
            switch event {
            case .message(let bytes):
                do {
                    batch.append(try AppMessage.decode(bytes))
                } catch {
                    fail(
                        TransportError(.protocolViolation, "bad application message: \(error)"),
                        sendClose: .protocolError, context: context)
                    return
                }
            case .ping(let body):
                if pongBudget.take(now: .now()) {
                    seal(context: context) { sealer, out throws(WireChannelError) in
                        try sealer.sealPong(body, into: &out)
                    }
                    context.flush()
                }
            case .pong:
                break
            case .close(let reason):
                closeReceived = true
                deliverBatch(context: context)
                context.fireChannelRead(wrapInboundOut(.closedByPeer(reason)))
                context.close(promise: nil)
                return
            }
        }
        if case .failure(let error) = outcome {
            deliverBatch(context: context)
            fail(TransportError.channel(error), sendClose: .protocolError, context: context)
        }
    }

    // MARK: Handshake steps

    private func handle(_ step: consuming HandshakeStep, context: ChannelHandlerContext) {
        switch consume step {
        case .needMore(let send):
            write(send, context: context)
        case .identityCheck(let remote, let send):
            write(send, context: context)
            context.fireChannelRead(wrapInboundOut(.identityCheck(remote)))
        case .established(let channel, let send):
            write(send, context: context)
            var info = SessionInfo(
                remoteKey: channel.remoteKey, sessionID: channel.sessionID, role: role,
                remoteAddress: Endpoint(context.channel.remoteAddress))
            info.capabilities = channel.capabilities
            let halves = channel.split()
            sealer = .some(halves.sealer)
            opener = .some(halves.opener)
            handshake = nil
            phase = .established
            context.fireChannelRead(wrapInboundOut(.established(info)))
            // Frames that arrived together with the handshake's last message.
            open(UnsafeRawBufferPointer(start: nil, count: 0), context: context)
            deliverBatch(context: context)
            // The identity decision comes back as a write, outside any read, and the async
            // side takes what was fired only at a read's end: without this, a session opened
            // only when the peer next sent something (a listener waited for the dialler's
            // HELLO, or for a keepalive PING when the dialler sent none).
            context.fireChannelReadComplete()
        case .failed(let failure, let send):
            write(send, context: context)
            fail(TransportError.handshake(failure), sendClose: nil, context: context)
        }
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .resolveIdentity(let accept):
            guard phase == .handshaking, var machine = handshake.take() else {
                promise?.fail(TransportError(.channelFailed, "no identity decision pending"))
                return
            }
            let step = machine.resolveIdentity(accept: accept)
            handshake = consume machine
            promise?.succeed()
            handle(step, context: context)
        case .send(let messages):
            guard phase == .established, !failed else {
                promise?.fail(TransportError(.channelFailed, "session is not open"))
                return
            }
            let now = ContinuousClock.now
            let sent = seal(context: context, promise: promise) {
                sealer, out throws(WireChannelError) in
                var encoded: [UInt8] = []
                for message in messages {
                    encoded.removeAll(keepingCapacity: true)
                    message.encode(into: &encoded)
                    try sealer.sealMessage(encoded, now: now, into: &out)
                }
            }
            if !sent {
                fail(
                    TransportError(.channelFailed, "could not encrypt"), sendClose: nil,
                    context: context)
            } else if !context.channel.isWritable {
                closeIfPeerStoppedReading(context: context)
            }
        case .close(let reason):
            guard phase == .established, !failed else {
                promise?.succeed()
                context.close(promise: nil)
                return
            }
            // Close only once CLOSE has left, so the peer sees a clean end, not a truncation.
            let written = context.eventLoop.makePromise(of: Void.self)
            seal(context: context, promise: written) { sealer, out throws(WireChannelError) in
                try sealer.sealClose(reason, into: &out)
            }
            phase = .closed
            context.flush()
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in
                // Our output ends after CLOSE; the connection closes when the peer's end
                // comes (it closes on CLOSE), or at `SessionHandle.closeGrace`. Closed at
                // once, a socket with input not read yet (the peer's PINGs) ends with RST
                // rather than FIN, and a peer that wrote before reading lost the CLOSE
                // waiting for it ("connection lost"; seen in full test runs on a loaded
                // machine). What comes meanwhile is read and dropped (`channelRead`).
                let context = loopBound.value
                if let promise { context.channel.closeFuture.cascade(to: promise) }
                context.close(mode: .output, promise: nil)
                // Read on to the peer's end, whoever consumes (or no longer consumes) above.
                context.read()
            }
        }
    }

    /// Only checked above the high mark (`isWritable` is false), so a healthy session never
    /// asks for the count.
    private func closeIfPeerStoppedReading(context: ChannelHandlerContext) {
        let waiting = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        guard waiting > configuration.outboundHardLimit else { return }
        fail(
            TransportError(
                .channelFailed,
                "the peer reads nothing: \(waiting) bytes wait to be sent to it"),
            sendClose: nil, context: context)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
    }

    /// Runs `body` with the sealer and writes what it produced. Returns false on failure.
    @discardableResult
    private func seal(
        context: ChannelHandlerContext, promise: EventLoopPromise<Void>? = nil,
        _ body: (inout FrameSealer, inout [UInt8]) throws(WireChannelError) -> Void
    ) -> Bool {
        guard var writer = sealer.take() else {
            promise?.fail(TransportError(.channelFailed, "session is closed"))
            return false
        }
        scratch.removeAll(keepingCapacity: true)
        let outcome = Result { () throws(WireChannelError) in try body(&writer, &scratch) }
        sealer = consume writer
        if case .failure(let error) = outcome {
            promise?.fail(TransportError.channel(error))
            return false
        }
        lastWrite = .now()
        context.write(
            wrapOutboundOut(context.channel.allocator.buffer(bytes: scratch)), promise: promise)
        return true
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        lastWrite = .now()
        context.writeAndFlush(
            wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    // MARK: Failure and timers

    /// Ends the connection: CLOSE if our own sending side is still healthy, then close. The
    /// error reaches the async side once.
    private func fail(
        _ error: TransportError, sendClose reason: CloseReason?, context: ChannelHandlerContext
    ) {
        guard !failed else { return }
        failed = true
        if let reason, phase == .established {
            seal(context: context) { sealer, out throws(WireChannelError) in
                try sealer.sealClose(reason, into: &out)
            }
            context.flush()
        }
        phase = .closed
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func timerFired(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        switch phase {
        case .handshaking:
            if now - startedAt >= configuration.handshakeTimeout {
                fail(
                    TransportError(.handshakeTimeout, "handshake not finished within the deadline"),
                    sendClose: nil, context: context)
            } else if now - lastRead >= configuration.handshakeReadIdle {
                fail(
                    TransportError(.readTimeout, "peer silent during the handshake"),
                    sendClose: nil, context: context)
            }
        case .established:
            // Silent: asked to read, and nothing came, for the whole dead timeout.
            if let asked = readAskedSince, now - max(lastRead, asked) >= configuration.deadTimeout {
                fail(
                    TransportError(.deadTimeout, "nothing received within the dead timeout"),
                    sendClose: .idle, context: context)
            } else if now - lastWrite >= configuration.keepaliveInterval {
                var generator = SystemRandomNumberGenerator()
                let body = (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
                seal(context: context) { sealer, out throws(WireChannelError) in
                    try sealer.sealPing(body, into: &out)
                }
                context.flush()
            }
        case .idle, .closed:
            break
        }
    }
}

/// Token bucket for PONG replies (PROTOCOL.md §7.2 32: a PING flood gets at most N PONG/s).
struct PongBudget {
    let perSecond: Int
    private var tokens: Double
    private var refilledAt = NIODeadline.now()

    init(perSecond: Int) {
        self.perSecond = perSecond
        tokens = Double(perSecond)
    }

    mutating func take(now: NIODeadline) -> Bool {
        let elapsed = Double((now - refilledAt).nanoseconds) / 1e9
        tokens = min(Double(perSecond), tokens + elapsed * Double(perSecond))
        refilledAt = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
