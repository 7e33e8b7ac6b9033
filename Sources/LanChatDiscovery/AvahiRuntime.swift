import LanChatCore
import Logging

/// One run of the Avahi backend: the poll thread and the engine confined to it.
///
/// Owned by `AvahiDiscovery.run()`, which calls `start` and `stop` (both take the poll lock,
/// so neither may run on the poll thread; nothing does, events leave through an
/// `AsyncStream`). `announce` may come from any task at any time and never blocks.
final class AvahiRuntime: @unchecked Sendable {
    // @unchecked: `engine` is only touched under `poll.withLock`, and `retainedEngine` only
    // by start/stop, which `AvahiDiscovery.run()` calls once each, in order.
    private let poll: ThreadedPoll
    private let engine: AvahiEngine
    private let mailbox: AnnouncementMailbox
    /// The reference that keeps the engine alive for Avahi's callbacks, which hold it as an
    /// unretained context pointer. Released only after the poll thread has stopped.
    private var retainedEngine: Unmanaged<AvahiEngine>?

    init(
        configuration: AvahiDiscovery.Configuration, logger: Logger,
        continuation: AsyncStream<DiscoveryEvent>.Continuation
    ) throws {
        poll = try ThreadedPoll()
        mailbox = try AnnouncementMailbox()
        engine = AvahiEngine(
            configuration: configuration, logger: logger, api: poll.api, mailbox: mailbox,
            continuation: continuation)
    }

    /// Creates the first client and starts the poll thread.
    func start() throws {
        retainedEngine = Unmanaged.passRetained(engine)
        do {
            try poll.withLock { try engine.start() }
            try poll.start()
        } catch {
            stop()
            throw error
        }
    }

    /// Hands the advertisement to the poll thread; before `start` it waits in the mailbox.
    func announce(_ advertisement: Advertisement) {
        mailbox.post(advertisement)
    }

    /// Hands a new `--interface` list to the poll thread; never blocks.
    func useInterfaces(_ names: [String]) {
        mailbox.post(interfaces: names)
    }

    /// Withdraws the record, frees every Avahi object, then stops the poll thread.
    func stop() {
        poll.withLock { engine.shutdown() }
        poll.stop()
        retainedEngine?.release()
        retainedEngine = nil
    }
}
