import Dispatch
import FoundationEssentials
import LanChatControl
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `watch` call on a connection of its own: connects, writes the request, then turns
/// each line the daemon writes into a `WatchUpdate` for the stream's consumer, as soon as it
/// is read. Unlike `ControlConnection` there is nothing to match by id: the first line
/// answers the one request, every later line is a notification, or the error that ends it.
///
/// Threads: connecting and the blocking `recv` loop run on a dispatch queue of its own,
/// never on a Swift-concurrency thread. `stop()` (the consumer went away) and the answer
/// timer come from other threads; they only shut the socket down, which wakes the loop. The
/// loop alone closes the descriptor, under the lock, so a shutdown never hits a reused one.
final class WatchStream: Sendable {
    typealias Continuation = AsyncThrowingStream<WatchUpdate, any Error>.Continuation

    private struct State {
        var fd: Int32 = -1
        var stopped = false
        var answered = false
    }

    private let path: String
    private let hints: DaemonHints
    private let request: [UInt8]
    private let continuation: Continuation
    private let state = Mutex(State())

    init(path: String, hints: DaemonHints, request: [UInt8], continuation: Continuation) {
        self.path = path
        self.hints = hints
        self.request = request
        self.continuation = continuation
    }

    /// Starts connecting; the first answer must come within `answerTimeout`, events may take
    /// as long as they like.
    func start(answerTimeout: Duration) {
        DispatchQueue(label: "lanchat.watch").async { self.run() }
        let milliseconds = Int(answerTimeout.components.seconds * 1000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
            self.answerTimedOut(after: answerTimeout)
        }
    }

    /// Ends the stream's connection; the loop then finishes. Any thread, any number of times.
    func stop() {
        state.withLock { state in
            state.stopped = true
            if state.fd >= 0 { UnixSocket.shutdown(state.fd) }
        }
    }

    private func answerTimedOut(after timeout: Duration) {
        let late = state.withLock { !$0.answered && !$0.stopped }
        guard late else { return }
        continuation.finish(
            throwing: ControlError.notAnswering(
                "lanchatd did not answer within \(timeout.components.seconds) s on \(path) "
                    + "(overloaded or hung?); \(hints.log)"))
        stop()
    }

    // MARK: On the stream's queue

    private func run() {
        let fd: Int32
        switch UnixSocket.connect(path: path) {
        case .failure(let failure):
            continuation.finish(
                throwing: ConnectErrorMapping.controlError(
                    for: failure, path: path, hints: hints))
            return
        case .success(let connected):
            fd = connected
        }
        let stoppedAlready = state.withLock { state in
            state.fd = fd
            return state.stopped
        }
        defer {
            state.withLock { state in
                UnixSocket.close(state.fd)
                state.fd = -1
            }
        }
        guard !stoppedAlready else { return }
        if let code = UnixSocket.sendAll(fd, request) {
            let reason = ConnectErrorMapping.describe(errno: code)
            continuation.finish(
                throwing: ControlError.unavailable("lost the connection to lanchatd: \(reason)"))
            return
        }
        continuation.finish(throwing: readLoop(fd: fd))
    }

    /// Reads until the stream ends; returns why (nil: the daemon closed it after answering).
    private func readLoop(fd: Int32) -> ControlError? {
        var splitter = LineSplitter()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { UnixSocket.receive(fd, into: $0) }
            if count == 0 {
                let answered = state.withLock { $0.answered }
                return answered ? nil : Self.lost
            }
            guard count > 0 else {
                let reason = ConnectErrorMapping.describe(errno: errno)
                return .unavailable("lost the connection to lanchatd: \(reason)")
            }
            do {
                for line in try splitter.append(chunk[0..<count]) {
                    if let ending = handle(line) { return ending }
                }
            } catch {
                return .internalError(
                    "lanchatd sent a line over \(LineSplitter.defaultMaxLineBytes >> 20) MiB")
            }
        }
    }

    /// Yields what one line carries; returns an error when the line ends the stream.
    private func handle(_ line: [UInt8]) -> ControlError? {
        let answered = state.withLock { $0.answered }
        guard answered else {
            do {
                let result = try ResponseDecoding.result(WatchResult.self, from: line)
                state.withLock { $0.answered = true }
                continuation.yield(.started(result))
                return nil
            } catch {
                return error
            }
        }
        switch WatchLine.read(line) {
        case .event(let event):
            continuation.yield(.event(event))
            return nil
        case .otherNotification:
            return nil
        case .response:
            // The daemon ends a stream with an error response (`watchOverflow`); a second
            // result would be a daemon bug.
            do {
                _ = try ResponseDecoding.result(WatchResult.self, from: line)
                return .internalError("lanchatd answered the watch twice")
            } catch {
                return error
            }
        case .malformed(let reason):
            return .internalError("lanchatd sent a malformed event: \(reason)")
        }
    }

    private static let lost = ControlError.unavailable(
        "lanchatd closed the connection before answering (is it stopping?)")
}

/// A line of the stream after the first answer.
enum WatchLine: Equatable {
    case event(EventInfo)
    /// A notification this client does not know: skipped, so a newer daemon may add some.
    case otherNotification
    /// A line with an id: the error that ends the stream.
    case response
    case malformed(String)

    private struct Head: Decodable {
        var id: RPCID?
        var method: String?
    }

    private struct Notification: Decodable {
        var params: EventInfo
    }

    static func read(_ line: [UInt8]) -> WatchLine {
        let data = Data(line)
        guard let head = try? ControlJSON.decoder().decode(Head.self, from: data) else {
            return .malformed("not a JSON object")
        }
        if head.id != nil { return .response }
        guard let method = head.method else { return .malformed("neither an id nor a method") }
        guard method == Methods.Watch.notification else { return .otherNotification }
        do {
            return .event(try ControlJSON.decoder().decode(Notification.self, from: data).params)
        } catch {
            return .malformed("its params are not an event")
        }
    }
}
