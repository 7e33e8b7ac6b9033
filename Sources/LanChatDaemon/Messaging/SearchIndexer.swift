import LanChatStore
import Logging

/// Builds the search index after the write (`Schema.v5`): a message commits without its
/// FTS5 entry, and this service indexes what was stored a moment later, in batches.
///
/// Owns nothing but its wake-up: the store's commit hook signals it (`messagesStored`, on
/// the writer's queue, so it must only signal) after each commit that logged an event, which
/// every stored message does but a message request's (those wait for the next wake-up). It
/// waits `delay` after the first signal so that a burst is indexed as one batch, not one per
/// commit. `search` indexes what is still pending itself, so the delay is never visible to a
/// user.
final class SearchIndexer: Sendable {
    static let delay: Duration = .milliseconds(500)

    private let store: MessageStore
    private let clock: DaemonClock
    private let logger: Logger
    private let wakeup = Wakeup()

    init(store: MessageStore, clock: DaemonClock, logger: Logger) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    /// Messages were committed (called from the store's commit hook).
    func messagesStored() { wakeup.signal() }

    /// Runs until cancelled; starts with what the previous run left unindexed.
    func run() async {
        wakeup.signal()
        while !Task.isCancelled {
            await wakeup.wait(until: nil, clock: clock)
            do {
                try await clock.sleepUntil(clock.monotonic() + Self.delay)
            } catch {
                return  // cancelled: the daemon is stopping; the next start indexes the rest
            }
            await indexPending()
        }
    }

    private func indexPending() async {
        do {
            // A short batch means it caught up: no empty write transaction to learn that.
            while !Task.isCancelled,
                try await store.indexPendingMessages() == MessageStore.searchIndexBatch
            {}
        } catch  where Task.isCancelled {
            return  // stopping: the transaction rolled back; the next start indexes the rest
        } catch {
            // Not lost: the messages are stored, and the next wake-up (or a search) retries.
            logger.warning("search index not updated: \(error)")
        }
    }
}
