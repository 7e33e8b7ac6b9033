internal import CAvahi

/// Owns one `AvahiTimeout` of a threaded poll: a one-shot wake-up that runs its callback on
/// the poll thread. Used to defer work out of Avahi callbacks and to retry after a delay.
///
/// Created, scheduled and freed only on the poll thread or under the poll lock; arming it
/// from another thread wakes the loop (simple-watch.c writes to its wake-up pipe).
final class PollTimer {
    private let api: UnsafePointer<AvahiPoll>
    private let timeout: OpaquePointer

    /// A disarmed timer. `context` is passed to `callback` unchanged.
    init(
        api: UnsafePointer<AvahiPoll>, context: UnsafeMutableRawPointer,
        callback: AvahiTimeoutCallback
    ) throws {
        guard let create = api.pointee.timeout_new,
            let timeout = create(api, nil, callback, context)
        else {
            throw AvahiDiscoveryError(
                calling: "AvahiPoll.timeout_new", code: Int32(AVAHI_ERR_NO_MEMORY))
        }
        self.api = api
        self.timeout = timeout
    }

    /// Arms the timer to fire once after `milliseconds` (re-arming moves the deadline).
    func schedule(afterMilliseconds milliseconds: Int) {
        var deadline = timeval()
        avahi_elapse_time(&deadline, UInt32(clamping: max(milliseconds, 0)), 0)
        api.pointee.timeout_update?(timeout, &deadline)
    }

    /// Disarms the timer.
    func cancel() {
        api.pointee.timeout_update?(timeout, nil)
    }

    deinit {
        api.pointee.timeout_free?(timeout)
    }
}
