import LanChatCore
import LanChatTransport
import Synchronization

/// The two ends of figure 3's bare encrypted pipe: real `Transport` sessions (Noise XX,
/// secretstream framing, the application codec) with the daemon's flow rules and nothing
/// else: no store, no API, no HELLO.
///
/// The receiving end classifies every MSG with the daemon's own `IncomingLedger` and answers
/// each run of at most 256 MSGs with one cumulative ACK (`sendControl`), as `PeerLink` does
/// after its commit. The sending end only records the ACKs it gets (`AckWindow`).
final class PipeReceiver: SessionDelegate {
    private struct State {
        var ledger = IncomingLedger(cursor: IncomingCursor())
        var received = 0
        var violation: String?
    }

    private let state = Mutex(State())

    var received: Int { state.withLock { $0.received } }
    var violation: String? { state.withLock { $0.violation } }

    func authorize(_ remote: PeerKey, connection: ConnectionInfo) async
        -> Result<Void, IdentityPolicy.Rejection>
    {
        .success(())
    }

    func sessionOpened(_ session: SessionHandle) async {}

    /// Called by the transport one read's batch at a time, in wire order.
    func session(_ session: SessionHandle, received messages: [AppMessage]) async {
        var acks: [AppMessage] = []
        state.withLock { state in
            var run = 0
            for message in messages {
                guard case .message(let wire) = message else { continue }
                switch state.ledger.classify(wire) {
                case .store: state.received += 1
                case .protocolError(let what): state.violation = what
                case .duplicate, .reject: break
                }
                run += 1
                if run == Limits.maxAckBatch {
                    acks.append(.ack(stream: wire.stream, delivered: state.ledger.cursor.delivered))
                    run = 0
                }
            }
            if run > 0 {
                let cursor = state.ledger.cursor
                acks.append(.ack(stream: cursor.stream, delivered: cursor.delivered))
            }
        }
        session.sendControl(acks)
    }

    func sessionClosed(_ session: SessionHandle, end: SessionEnd) async {}
}

/// The sending end: hands the established session to the benchmark and feeds ACKs to
/// `window`.
final class PipeSender: SessionDelegate {
    let window = AckWindow()
    let sessions: AsyncStream<SessionHandle>
    private let continuation: AsyncStream<SessionHandle>.Continuation

    init() {
        (sessions, continuation) = AsyncStream.makeStream(of: SessionHandle.self)
    }

    func authorize(_ remote: PeerKey, connection: ConnectionInfo) async
        -> Result<Void, IdentityPolicy.Rejection>
    {
        .success(())
    }

    func sessionOpened(_ session: SessionHandle) async {
        continuation.yield(session)
    }

    func session(_ session: SessionHandle, received messages: [AppMessage]) async {
        for case .ack(_, let delivered) in messages { window.acknowledge(upTo: delivered) }
    }

    func sessionClosed(_ session: SessionHandle, end: SessionEnd) async {
        continuation.finish()
        window.fail()
    }
}

/// The highest seq the receiver acknowledged, and one waiter for it to reach a value.
/// Written on the transport's task, awaited by the pump.
final class AckWindow: Sendable {
    private struct State {
        var acknowledged: UInt64 = 0
        var closed = false
        var waiter: (target: UInt64, continuation: CheckedContinuation<Bool, Never>)?
    }

    private let state = Mutex(State())

    var acknowledged: UInt64 { state.withLock { $0.acknowledged } }

    func acknowledge(upTo seq: UInt64) {
        let ready = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.acknowledged = max(state.acknowledged, seq)
            guard let waiter = state.waiter, state.acknowledged >= waiter.target else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        ready?.resume(returning: true)
    }

    /// The session ended: a waiter gets `false`.
    func fail() {
        let waiter = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume(returning: false)
    }

    /// Returns once `acknowledged ≥ target` (true) or the session ended (false).
    func wait(until target: UInt64) async -> Bool {
        await withCheckedContinuation { continuation in
            let immediate = state.withLock { state -> Bool? in
                if state.acknowledged >= target { return true }
                if state.closed { return false }
                state.waiter = (target, continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }
}
