import LanChatControl
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the session tells the screen. Posted from async code, taken by the terminal loop's
/// thread, which owns the screen state.
enum ChatUpdate: Sendable {
    case messages([MessageInfo])
    /// The `send` answer for a line: the messages as stored then. The watch may have told a
    /// later status of them already, so only those not shown yet are added (`addSent`).
    case sent([MessageInfo])
    /// The newest page read again: put in its place, in its order.
    case page([MessageInfo])
    /// The watch (re)started: what came after the newest shown may have been missed.
    case watchStarted
    /// What came after the message `after`, in arrival order (`ChatScreen.insert`).
    case caughtUp([MessageInfo], after: String)
    /// More was missed than a catch-up takes: the newest page replaces what is shown.
    case replaced([MessageInfo], hasOlder: Bool)
    case older([MessageInfo], hasOlder: Bool)
    case peer(PeerInfo)
    case group(GroupInfo)
    case member(PeerInfo)
    /// A line was sent on a message request: that accepted it.
    case accepted
    case typing(Bool)
    case notice(String?)
    /// Our daemon went away or came back (`ChatSession.Event.daemonReachable`).
    case daemonReachable(Bool)
    /// A line the daemon did not take (not running, disk full…): why, and the line, which
    /// goes back into an empty input to be sent again with Enter.
    case unsent(String, reason: String)
    /// SIGWINCH: the terminal's size changed.
    case resized
    case stop
}

/// A queue with a pipe beside it: posting writes a byte, so the terminal loop's `poll`
/// wakes for an update as it does for a key.
final class ChatInbox: Sendable {
    private let queue = Mutex<[ChatUpdate]>([])
    let wakeFD: Int32
    private let postFD: Int32

    init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeFD = fds[0]
        postFD = fds[1]
    }

    func post(_ update: ChatUpdate) {
        queue.withLock { $0.append(update) }
        var byte: UInt8 = 1
        _ = write(postFD, &byte, 1)
    }

    func take() -> [ChatUpdate] {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(wakeFD, &buffer, buffer.count) > 0 {}
        return queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }

    deinit {
        close(wakeFD)
        close(postFD)
    }
}
