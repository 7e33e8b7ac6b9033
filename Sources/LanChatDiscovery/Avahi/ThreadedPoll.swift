internal import CAvahi

/// Owns an `AvahiThreadedPoll`: Avahi's event loop on its own thread. Every Avahi object of
/// the backend belongs to this loop; callbacks run on its thread with its lock held, and any
/// other thread must hold the lock (`withLock`) to touch them.
///
/// Owned by `AvahiRuntime`; `start`/`stop` are called from the task running
/// `AvahiDiscovery.run()`, never from the poll thread.
final class ThreadedPoll: @unchecked Sendable {
    // @unchecked: the pointer is only used through libavahi calls that do their own locking
    // (start, stop, lock, unlock) or under that lock.
    private let pointer: OpaquePointer

    init() throws {
        guard let pointer = avahi_threaded_poll_new() else {
            throw AvahiDiscoveryError(
                calling: "avahi_threaded_poll_new", code: Int32(AVAHI_ERR_NO_MEMORY))
        }
        self.pointer = pointer
    }

    /// The `AvahiPoll` vtable for clients and timers of this loop.
    var api: UnsafePointer<AvahiPoll> { avahi_threaded_poll_get(pointer) }

    /// Starts the poll thread.
    func start() throws {
        let result = avahi_threaded_poll_start(pointer)
        guard result >= 0 else {
            throw AvahiDiscoveryError(
                calling: "avahi_threaded_poll_start", code: Int32(AVAHI_ERR_FAILURE))
        }
    }

    /// Stops and joins the poll thread. Must not be called with the lock held.
    func stop() {
        _ = avahi_threaded_poll_stop(pointer)  // -1 only when the thread was not running.
    }

    /// Runs `body` with the loop locked. Never call from the poll thread (its callbacks already
    /// hold the lock, and the lock is not recursive).
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        avahi_threaded_poll_lock(pointer)
        defer { avahi_threaded_poll_unlock(pointer) }
        return try body()
    }

    deinit {
        avahi_threaded_poll_free(pointer)  // Also stops the thread if it still runs.
    }
}
