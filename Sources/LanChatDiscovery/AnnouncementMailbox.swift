import LanChatCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hands the latest advertisement from `announce`, and the latest interface list from
/// `useInterfaces` (SIGHUP), from any task to Avahi's poll thread without taking the poll lock. The poll thread holds that lock across libavahi-client calls, each a
/// blocking D-Bus round trip to avahi-daemon, and `announce` must not wait for them.
///
/// `post` stores the advertisement and writes a byte to a non-blocking pipe; the engine
/// watches the pipe's read end (`PollWatch`) and calls `take` on the poll thread. Only the
/// newest advertisement and the newest interface list matter, so posts in between overwrite
/// each other.
final class AnnouncementMailbox: Sendable {
    /// What the poll thread has not taken yet; nil fields have not changed since.
    struct Delivery: Sendable {
        var advertisement: Advertisement?
        var interfaces: [String]?
    }

    private let pending = Mutex(Delivery())
    /// The read end, watched by the poll.
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw AvahiDiscoveryError(.systemCall("pipe", errno)) }
        readDescriptor = ends[0]
        writeDescriptor = ends[1]
        for descriptor in ends {
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0,
                fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
            else { throw AvahiDiscoveryError(.systemCall("fcntl", errno)) }
        }
    }

    /// Any thread: keep `advertisement` for the poll thread and wake it. Never blocks.
    func post(_ advertisement: Advertisement) {
        pending.withLock { $0.advertisement = advertisement }
        wake()
    }

    /// Any thread: keep the `--interface` names for the poll thread and wake it. Never blocks.
    func post(interfaces: [String]) {
        pending.withLock { $0.interfaces = interfaces }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) already holds a wake-up, so a failed write loses nothing.
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Poll thread: empty the pipe and take what was posted since the last call.
    func take() -> Delivery {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
        return pending.withLock { pending in
            defer { pending = Delivery() }
            return pending
        }
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }
}
