import Glibc
import Logging
import NIOCore
import Synchronization

/// Sits on a listening socket in front of NIO's `AcceptBackoffHandler`, which stops
/// accepting for a second whenever `accept` fails. This handler says so in the log, once
/// per episode: when the process or the system runs out of descriptors (EMFILE, ENFILE),
/// the log says why connections wait; the next accepted connection ends the episode.
public final class AcceptFailureLogger: ChannelInboundHandler, Sendable {
    public typealias InboundIn = any Channel

    private let logger: Logger
    private let what: String
    private let inEpisode = Mutex(false)

    /// `what` names the socket in the log line ("control socket", "listener").
    public init(logger: Logger, what: String) {
        self.logger = logger
        self.what = what
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ended = inEpisode.withLock { inEpisode in
            defer { inEpisode = false }
            return inEpisode
        }
        if ended { logger.notice("\(what): accepting connections again") }
        context.fireChannelRead(data)
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let ioError = error as? IOError {
            let first = inEpisode.withLock { inEpisode in
                defer { inEpisode = true }
                return !inEpisode
            }
            if first {
                let outOfDescriptors = ioError.errnoCode == EMFILE || ioError.errnoCode == ENFILE
                logger.warning(
                    outOfDescriptors
                        ? "\(what): out of file descriptors, accepting again once a second"
                        : "\(what): accept failed (\(ioError)), accepting again once a second")
            }
        }
        context.fireErrorCaught(error)
    }
}
