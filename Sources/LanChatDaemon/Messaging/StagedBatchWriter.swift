import LanChatStore
import Logging
import Synchronization

/// Stores staged received batches as messages (`MessageStore.storeReceived`) once the peers'
/// streams pause, so a burst is acknowledged at the speed of one small commit per batch and
/// written out as messages after it, many batches per transaction.
///
/// Owns the time of the last staging and its wake-up: the store's staging hook signals it
/// (`staged`, on the writer's queue, so it only signals). After a signal it waits until no
/// batch was staged for `quiet`, at most `delay` after the signal, or until `maxBacklog`
/// messages wait. The delay is short while few wait (one batch of a few dozen: a short job,
/// soon done) and long for a burst (a backlog delivered after a reconnection is acknowledged
/// at the speed of staging, then stored, rather than stalled in the middle by a long job).
///
/// Nobody sees the delay in what they read: every store read and write that concerns
/// messages stores the stage first. What waits for it is the event log (a `watch` sees a
/// received message when it is stored); the links announce arrivals (`messagesReceived`)
/// at once.
final class StagedBatchWriter: Sendable {
    static let quiet: Duration = .milliseconds(10)
    static let shortDelay: Duration = .milliseconds(50)
    static let burst = 1_024
    static let longDelay: Duration = .milliseconds(500)
    static let maxBacklog = 32_768

    /// How long staged messages may wait after the signal, given how many wait.
    static func delay(staged: Int) -> Duration {
        staged < burst ? shortDelay : longDelay
    }

    private let store: MessageStore
    private let clock: DaemonClock
    private let logger: Logger
    private let wakeup = Wakeup()
    private let lastStaged = Mutex<ContinuousClock.Instant?>(nil)

    init(store: MessageStore, clock: DaemonClock, logger: Logger) {
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    /// A batch was staged (called from the store's staging hook).
    func staged() {
        let now = clock.monotonic()
        lastStaged.withLock { $0 = now }
        wakeup.signal()
    }

    /// Runs until cancelled. What is still staged then is stored by `MessageStore.close`, or
    /// by the next `open` after a crash.
    func run() async {
        while !Task.isCancelled {
            await wakeup.wait(until: nil, clock: clock)
            guard store.stagedMessages > 0 else { continue }
            let signalled = clock.monotonic()
            while case let staged = store.stagedMessages, staged < Self.maxBacklog {
                let last = lastStaged.withLock { $0 } ?? signalled
                let due = min(last + Self.quiet, signalled + Self.delay(staged: staged))
                guard clock.monotonic() < due else { break }
                do {
                    try await clock.sleepUntil(due)
                } catch {
                    return  // cancelled: the daemon is stopping
                }
            }
            await storeStaged()
        }
    }

    private func storeStaged() async {
        do {
            while !Task.isCancelled, try await store.storeStaged() > 0 {}
        } catch {
            // Not lost: the batches stay staged, and the next batch, read or write retries.
            logger.warning("received messages not stored yet: \(error)")
        }
    }
}
