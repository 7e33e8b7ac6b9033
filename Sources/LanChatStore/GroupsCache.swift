import Synchronization

/// The `groups` rows as last read, for `MessageStore.groups()`.
///
/// Why: every command that takes PEER also takes GROUP, so `send` asks which groups exist
/// before it resolves its peer; without this, every message sent paid one more store read
/// (a hop to a reader connection and back). Owned by the store, which alone writes `groups`:
/// each method that writes it says so in its transaction, and the store's commit observer
/// calls `invalidate()` at the commit (`EventCommitObserver`); a read keeps its result only
/// if no such write committed while it ran (the generation is unchanged).
final class GroupsCache: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var groups: [StoredGroup]?
    }

    private let state = Mutex(State())

    /// The cached groups, if any, and the generation a read starting now belongs to.
    func snapshot() -> (groups: [StoredGroup]?, generation: UInt64) {
        state.withLock { ($0.groups, $0.generation) }
    }

    /// Keeps `groups`, read in `generation`, unless a write ended since.
    func keep(_ groups: [StoredGroup], readIn generation: UInt64) {
        state.withLock { state in
            if state.generation == generation { state.groups = groups }
        }
    }

    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.groups = nil
        }
    }
}
