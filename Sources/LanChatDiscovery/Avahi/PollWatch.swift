internal import CAvahi

/// Owns one `AvahiWatch` of a threaded poll: the poll thread runs `callback` whenever the file
/// descriptor is readable. Created and freed on the poll thread or under the poll lock.
final class PollWatch {
    private let api: UnsafePointer<AvahiPoll>
    private let watch: OpaquePointer

    init(
        api: UnsafePointer<AvahiPoll>, readable descriptor: Int32,
        context: UnsafeMutableRawPointer, callback: AvahiWatchCallback
    ) throws {
        guard let create = api.pointee.watch_new,
            let watch = create(api, descriptor, AVAHI_WATCH_IN, callback, context)
        else {
            throw AvahiDiscoveryError(
                calling: "AvahiPoll.watch_new", code: Int32(AVAHI_ERR_NO_MEMORY))
        }
        self.api = api
        self.watch = watch
    }

    deinit {
        api.pointee.watch_free?(watch)
    }
}
