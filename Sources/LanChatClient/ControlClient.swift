import Dispatch
import FoundationEssentials
import LanChatControl
import Synchronization

/// The client side of the control API: newline-delimited JSON-RPC 2.0 over the daemon's Unix
/// socket (PRODUCT.md §5, `man lanchat-api`).
///
/// One client keeps one connection, opened on the first call and reopened by the next call
/// after it breaks (the daemon restarted). Calls may be made concurrently from any task; they
/// are pipelined on the connection and each gets the response carrying its id. Nothing here
/// blocks a Swift-concurrency thread: socket I/O runs on the connection's dispatch queues.
///
/// Every failure is a `ControlError`, whose `exitCode` is what `lanchat` exits with:
/// nothing listening → `daemonNotRunning` (69, with the start hint); no permission on the
/// socket → `permissionDenied` (77); the daemon's own JSON-RPC errors → the matching error;
/// a response that is malformed or over 16 MiB → `internalError` (70).
public final class ControlClient: Sendable {
    public let socketPath: String
    /// What the errors of a daemon that does not answer tell the user to do.
    public let hints: DaemonHints

    private struct State {
        var connection: ControlConnection?
        var lastID: Int64 = 0
    }

    private let state = Mutex(State())

    /// Does not connect: the first call does.
    public init(socketPath: String, hints: DaemonHints = .userService) {
        self.socketPath = socketPath
        self.hints = hints
    }

    deinit {
        state.withLock { $0.connection?.close() }
    }

    /// How long a call waits for the connection and the answer before it fails with
    /// `notAnswering` (exit 75): a daemon out of descriptors or hung must not hang scripts.
    /// Calls that wait by design (`send --wait`) add their own wait to it.
    public static let answerTimeout: Duration = .seconds(10)

    /// Calls `method` with `params` and returns its result, e.g.
    /// `try await client.call(Methods.Send.self, SendParams(peer: "bob", text: "hi"))`.
    /// `timeout` covers connecting, sending and the answer; nil waits for ever.
    public func call<M: ControlMethod>(
        _ method: M.Type, _ params: M.Params, timeout: Duration? = answerTimeout
    )
        async throws(ControlError) -> M.Result
    {
        let (connection, id) = state.withLock { state in
            state.lastID += 1
            if let existing = state.connection, existing.isUsable {
                return (existing, state.lastID)
            }
            let fresh = ControlConnection(path: socketPath, hints: hints)
            state.connection = fresh
            return (fresh, state.lastID)
        }
        connection.start()
        let line = try Self.encodeRequest(id: id, method: M.name, params: params)
        let path = self.socketPath
        let log = hints.log
        // A timer, not a wait for an event: cancelled as soon as the answer is in. A dispatch
        // work item costs far less than a task per call (this is on every `send`).
        let timer = timeout.map { timeout in
            let expiry = DispatchWorkItem {
                connection.abandon(
                    id,
                    with: .notAnswering(
                        ControlError.noAnswerInTime + "\(timeout.components.seconds) s on "
                            + "\(path) (overloaded or hung?); \(log)"
                            + Self.mayStillBeDone(M.name)))
            }
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(
                deadline: .now() + .nanoseconds(nanoseconds), execute: expiry)
            return expiry
        }
        let reply = await connection.exchange(
            id: id, line: line, ifLost: Self.mayStillBeDone(M.name))
        timer?.cancel()
        return try ResponseDecoding.result(M.Result.self, from: reply.get())
    }

    /// Closes the connection; calls still waiting fail with `unavailable`. A later call
    /// opens a new connection.
    public func close() {
        let connection = state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        connection?.close()
    }

    /// A request that was not answered may still be carried out once the daemon gets to it:
    /// said, so that a script does not send the same message twice (found by QA). Nothing
    /// is said of the methods that only read.
    static func mayStillBeDone(_ method: String) -> String {
        switch method {
        case Methods.Send.name:
            ". The message may still be stored and sent: look at 'lanchat history PEER' "
                + "before sending it again"
        case Methods.Backup.name:
            // Not resumed: a copy cut short is never given its name (found by QA).
            ". No backup was made: a copy cut short is left, if at all, as .NAME.partial-… "
                + "beside the path; remove it and back up again"
        case Methods.Status.name, Methods.Who.name, Methods.Inbox.name, Methods.History.name,
            Methods.Search.name, Methods.Contacts.name, Methods.Groups.name, Methods.Watch.name:
            ""
        default:
            ". What was asked may still be done once lanchatd gets to it"
        }
    }

    /// One request line, newline included. Both writers escape control characters, so the
    /// line never contains a raw newline. `send` writes itself (`ControlJSONWritableParams`):
    /// through `JSONEncoder` it was about 2 % of all the CPU of the benchmark's `send --wait`
    /// and `send --lines` runs, client and daemons together (docs/benchmarks.md, round 8).
    static func encodeRequest<Params: Encodable>(id: Int64, method: String, params: Params)
        throws(ControlError) -> [UInt8]
    {
        let request = RPCRequest(id: .number(id), method: method, params: params)
        if var bytes = request.writtenLine() {
            bytes.append(UInt8(ascii: "\n"))
            return bytes
        }
        do {
            var bytes = [UInt8](try ControlJSON.encoder().encode(request))
            bytes.append(UInt8(ascii: "\n"))
            return bytes
        } catch {
            throw .internalError("cannot encode the '\(method)' request: \(error)")
        }
    }
}
