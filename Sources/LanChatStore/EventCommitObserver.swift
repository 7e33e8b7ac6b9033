import GRDB
import Synchronization

/// Calls the store's `onEventsCommitted` handler after every commit that inserted rows into
/// `events` (whichever write path did it: a trigger on `messages` or an explicit event), so
/// the daemon can wake its `watch` streams and read the new events from the log.
///
/// Before that, a commit that wrote `groups` (its writer said so with `groupsWritten()`)
/// invalidates the `GroupsCache`: a `watch` stream woken by the `group.changed` event of the
/// same commit must not read the groups from before it (found when a chat's header kept a
/// group's membership from before the change). Invalidated here, at the commit and ahead of
/// the handler, not once the write has returned, which is a moment after.
///
/// GRDB calls an observer on the writer's queue: `databaseDidChange` inside the statement,
/// `databaseDidCommit` after the commit, when the writer's work for that transaction is done.
/// The handler runs there, so it must not block (it should only wake a task).
final class EventCommitObserver: TransactionObserver, Sendable {
    /// The closure sits in a struct, not directly in the generic `Mutex`: a function value
    /// stored as a generic `Value` is re-wrapped in two reabstraction thunks on every
    /// `withLock` that hands it out, permanently. Stored bare, the handler grew two stack
    /// frames per commit, so the writer's stack overflowed (the daemon crashed) after some
    /// 120 000 commits, each call costing more than the last on the way.
    private let handler = Mutex<Handler?>(nil)

    private struct Handler: Sendable {
        let call: @Sendable () -> Void
    }

    /// Whether the transaction in progress inserted an event; only touched on the writer queue,
    /// but kept in a mutex so the class is honestly Sendable.
    private let inserted = Mutex(false)
    /// Whether the transaction in progress wrote `groups` (`groupsWritten()`).
    private let wroteGroups = Mutex(false)
    private let groupsCache: GroupsCache

    init(groupsCache: GroupsCache) {
        self.groupsCache = groupsCache
    }

    /// Called by a write that changes `groups`, inside its transaction.
    func groupsWritten() {
        wroteGroups.withLock { $0 = true }
    }

    func setHandler(_ handler: (@Sendable () -> Void)?) {
        self.handler.withLock { $0 = handler.map(Handler.init) }
    }

    var currentHandler: (@Sendable () -> Void)? { handler.withLock { $0 }?.call }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .insert(let table) = eventKind { return table == "events" }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {
        inserted.withLock { $0 = true }
        // One insert is enough to know; the rest of the transaction need not be reported.
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        let didWriteGroups = wroteGroups.withLock { value in
            defer { value = false }
            return value
        }
        if didWriteGroups { groupsCache.invalidate() }
        let didInsert = inserted.withLock { value in
            defer { value = false }
            return value
        }
        guard didInsert, let handler = currentHandler else { return }
        handler()
    }

    func databaseDidRollback(_ db: Database) {
        inserted.withLock { $0 = false }
        wroteGroups.withLock { $0 = false }
    }
}
