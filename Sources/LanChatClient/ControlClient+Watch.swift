import Dispatch
import FoundationEssentials
import LanChatControl

/// What a `watch` stream delivers, in order: `started` once (the daemon's first answer),
/// then one `event` per notification line, as each line arrives.
public enum WatchUpdate: Sendable, Hashable {
    case started(WatchResult)
    case event(EventInfo)
}

extension ControlClient {
    /// Opens a connection of its own for `watch` (a stream occupies its connection until one
    /// side closes it) and yields the first answer, then every event.
    ///
    /// The stream finishes without an error when the daemon closes the connection after its
    /// first answer (it stopped or restarted: resume with `since` = the last cursor seen). It
    /// throws a `ControlError`: the daemon's answer when it refuses the watch (`cursorTooOld`,
    /// a peer not found, …), `watchOverflow` with `data.cursor` when the consumer fell behind,
    /// the usual connect errors (`daemonNotRunning`, `permissionDenied`), and `notAnswering`
    /// when the first answer takes longer than `answerTimeout`. Waiting for events has no time
    /// limit. Ending the iteration (or cancelling its task) closes the connection.
    public func watch(_ params: WatchParams = WatchParams()) -> AsyncThrowingStream<
        WatchUpdate, any Error
    > {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: WatchUpdate.self)
        let request: [UInt8]
        do {
            request = try Self.encodeRequest(id: 1, method: Methods.Watch.name, params: params)
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let watch = WatchStream(
            path: socketPath, hints: hints, request: request, continuation: continuation)
        continuation.onTermination = { _ in watch.stop() }
        watch.start(answerTimeout: Self.answerTimeout)
        return stream
    }
}
