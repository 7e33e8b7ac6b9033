import Dispatch
import LanChatControl
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One stream connection to the daemon's control socket, carrying any number of calls, in
/// sequence or pipelined; responses are matched to calls by id, in whatever order they come.
///
/// Threads: all blocking socket calls happen on two serial dispatch queues owned by the
/// connection, never on a Swift-concurrency thread (the cooperative pool may be two threads,
/// shared with an in-process daemon). `writeQueue` connects, writes the request lines that
/// the socket did not take at once, and finally closes the descriptor, so a write can never
/// hit a descriptor number reused after close. A calling task only ever makes a
/// non-blocking `send`, under the lock, when nothing is queued (see `send(id:line:)`).
/// `readQueue` runs one loop that blocks in `recv` and resumes the waiting calls. The state
/// shared between them and the calling tasks is behind one `Mutex`.
final class ControlConnection: Sendable {
    typealias Reply = Result<[UInt8], ControlError>

    private struct State {
        var fd: Int32 = -1
        var started = false
        /// Set once, when the connection can carry no more calls; later calls fail with it.
        var failure: ControlError?
        var waiting: [Int64: WaitingCall] = [:]
        /// Request lines handed to `writeQueue` and not yet written: while there are any, a
        /// new line must queue behind them.
        var queuedWrites = 0
    }

    /// A call sent and not yet answered.
    private struct WaitingCall {
        let continuation: CheckedContinuation<Reply, Never>
        /// What its error says when the connection is lost with it unanswered, beside the
        /// loss itself (`ControlClient.mayStillBeDone`).
        let ifLost: String
    }

    let path: String
    let hints: DaemonHints
    private let state = Mutex(State())
    private let writeQueue = DispatchQueue(label: "lanchat.control.write")
    private let readQueue = DispatchQueue(label: "lanchat.control.read")

    init(path: String, hints: DaemonHints) {
        self.path = path
        self.hints = hints
    }

    /// Whether calls may still be sent; a dead connection is replaced by the client.
    var isUsable: Bool { state.withLock { $0.failure == nil } }

    /// Queues the connect; the first request line is queued behind it. Idempotent.
    func start() {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        writeQueue.async { self.connect() }
    }

    /// Sends one request line (with its newline) and waits for the response line with `id`.
    /// `ifLost` is added to the error of a connection lost before the answer: the call may
    /// have been carried out (exit 75), unlike one that never reached a daemon (69).
    func exchange(id: Int64, line: [UInt8], ifLost: String = "") async -> Reply {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
                let refusal: ControlError? = state.withLock { state in
                    if let failure = state.failure { return failure }
                    state.waiting[id] = WaitingCall(continuation: continuation, ifLost: ifLost)
                    return nil
                }
                if let refusal {
                    continuation.resume(returning: .failure(refusal))
                } else if Task.isCancelled {
                    resume(id, with: .failure(Self.cancelled))
                } else {
                    send(id: id, line: line)
                }
            }
        } onCancel: {
            resume(id, with: .failure(Self.cancelled))
        }
    }

    /// Ends the connection: waiting calls fail, the reader wakes up and the descriptor is
    /// closed behind any queued write. Safe from any thread, any number of times.
    func close() {
        fail(with: .unavailable("the connection to lanchatd was closed"))
    }

    static let cancelled = ControlError.unavailable("the call to lanchatd was cancelled")

    /// Writes the line on the calling thread when nothing is queued and the socket takes all
    /// of it at once, without blocking: the common case, and one thread hand-off less per
    /// call. Anything else (not connected yet, a partial write, an error) goes to
    /// `writeQueue`, behind what is already queued, which blocks as needed and reports the
    /// error. The lock held across the `send` keeps lines from interleaving and the
    /// descriptor from being closed under it.
    private func send(id: Int64, line: [UInt8]) {
        let rest: ArraySlice<UInt8>? = state.withLock { state in
            var written = 0
            if state.failure == nil, state.fd >= 0, state.queuedWrites == 0 {
                written = UnixSocket.sendWithoutBlocking(state.fd, line) ?? 0
                if written == line.count { return nil }
            }
            state.queuedWrites += 1
            return line[written...]
        }
        if let rest {
            writeQueue.async { self.write(id: id, line: Array(rest)) }
        }
    }

    // MARK: On writeQueue

    private func connect() {
        switch UnixSocket.connect(path: path) {
        case .failure(let failure):
            fail(with: ConnectErrorMapping.controlError(for: failure, path: path, hints: hints))
        case .success(let fd):
            let alreadyClosed = state.withLock { state in
                state.fd = fd
                return state.failure != nil
            }
            if alreadyClosed {
                closeDescriptor()
            } else {
                readQueue.async { self.readLoop(fd: fd) }
            }
        }
    }

    private func write(id: Int64, line: [UInt8]) {
        defer { state.withLock { $0.queuedWrites -= 1 } }
        let fd = state.withLock { $0.failure == nil ? $0.fd : -1 }
        guard fd >= 0 else {
            let failure = state.withLock { $0.failure } ?? Self.lost
            resume(id, with: .failure(failure))
            return
        }
        if let code = UnixSocket.sendAll(fd, line) {
            let reason = ConnectErrorMapping.describe(errno: code)
            resume(id, with: .failure(.unavailable("lost the connection to lanchatd: \(reason)")))
        }
    }

    /// Closes under the lock so that `fail(with:)` never shuts down a reused descriptor.
    private func closeDescriptor() {
        state.withLock { state in
            if state.fd >= 0 {
                UnixSocket.close(state.fd)
                state.fd = -1
            }
        }
    }

    // MARK: On readQueue

    private func readLoop(fd: Int32) {
        var splitter = LineSplitter()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var ending: ControlError
        reading: while true {
            let count = chunk.withUnsafeMutableBytes { UnixSocket.receive(fd, into: $0) }
            if count > 0 {
                do {
                    for line in try splitter.append(chunk[0..<count]) {
                        if let failure = route(line) {
                            ending = failure
                            break reading
                        }
                    }
                } catch {
                    ending = .internalError(
                        "lanchatd sent a response over \(LineSplitter.defaultMaxLineBytes >> 20) MiB"
                    )
                    break reading
                }
            } else if count == 0 {
                ending =
                    splitter.hasPartialLine
                    ? .internalError("lanchatd closed the connection in the middle of a response")
                    : Self.lost
                break reading
            } else {
                let reason = ConnectErrorMapping.describe(errno: errno)
                ending = .notAnswering(
                    "lost the connection to lanchatd before its answer: \(reason)")
                break reading
            }
        }
        fail(with: ending)
        writeQueue.async { self.closeDescriptor() }
    }

    /// Hands a response line to the call waiting for its id. Returns an error when the line
    /// cannot be trusted, which ends the connection.
    private func route(_ line: [UInt8]) -> ControlError? {
        switch ResponseRouting.classify(line) {
        case .response(let id):
            resume(id, with: .success(line))
        case .errorWithoutID(let error):
            // The daemon could not read a request (it answers those with a null id). Requests
            // are read in order, so the oldest waiting call is the one it could not read.
            let oldest = state.withLock { $0.waiting.keys.min() }
            if let oldest { resume(oldest, with: .failure(error)) }
        case .notification, .unknownID:
            break
        case .malformed(let reason):
            return .internalError("lanchatd sent a malformed response: \(reason)")
        }
        return nil
    }

    // MARK: Any thread

    /// The connection ended with calls on it: each may have been carried out (found by QA: a
    /// `send` whose daemon was killed mid-call exited 69, "not running", and a script that
    /// sends again on 69 stored the message twice).
    private static let lost = ControlError.notAnswering(
        "lanchatd closed the connection before answering (it stopped or crashed)")

    /// Fails the call `id` if it is still waiting (its answer did not come in time).
    func abandon(_ id: Int64, with error: ControlError) {
        resume(id, with: .failure(error))
    }

    private func resume(_ id: Int64, with reply: Reply) {
        let call = state.withLock { $0.waiting.removeValue(forKey: id) }
        call?.continuation.resume(returning: reply)
    }

    /// Marks the connection dead (first failure wins), fails every waiting call with it and
    /// wakes the reader by shutting the socket down.
    private func fail(with error: ControlError) {
        let (waiting, failure) = state.withLock { state in
            if state.failure == nil { state.failure = error }
            if state.fd >= 0 { UnixSocket.shutdown(state.fd) }
            defer { state.waiting.removeAll() }
            return (state.waiting, state.failure ?? error)
        }
        for call in waiting.values {
            // Lost before its answer: said what may have been done (exit 75).
            let said =
                failure.isNotAnswering
                ? ControlError.notAnswering(failure.message + call.ifLost) : failure
            call.continuation.resume(returning: .failure(said))
        }
    }
}
