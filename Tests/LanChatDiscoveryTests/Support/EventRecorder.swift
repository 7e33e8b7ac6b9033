import LanChatCore

/// Collects a discovery backend's events from the one task allowed to consume them, and lets
/// a test await the first event after a cursor that matches a predicate.
///
/// Only the integration tests give it a deadline, so a broken harness fails instead of hanging;
/// unit tests never wait on time.
actor EventRecorder {
    struct TimedOut: Error, CustomStringConvertible {
        var what: String
        var seen: [DiscoveryEvent]
        var description: String { "timed out waiting for \(what); saw \(seen)" }
    }

    private(set) var events: [DiscoveryEvent] = []
    private(set) var isFinished = false
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0

    /// Starts consuming `stream`; returns the consuming task.
    nonisolated func record(_ stream: AsyncStream<DiscoveryEvent>) -> Task<Void, Never> {
        Task {
            for await event in stream { await self.append(event) }
            await self.finish()
        }
    }

    private func append(_ event: DiscoveryEvent) {
        events.append(event)
        wakeAll()
    }

    private func finish() {
        isFinished = true
        wakeAll()
    }

    private func wakeAll() {
        let woken = waiters
        waiters = [:]
        for waiter in woken.values { waiter.resume() }
    }

    /// Suspends until something new is recorded (or the stream finishes).
    private func changed() async {
        let id = nextWaiter
        nextWaiter += 1
        await withCheckedContinuation { waiters[id] = $0 }
    }

    /// The index and value of the first event at or after `cursor` matching `predicate`,
    /// waiting for it if needed; nil if the stream finishes first.
    func first(
        from cursor: Int = 0, where predicate: @Sendable (DiscoveryEvent) -> Bool
    ) async -> (index: Int, event: DiscoveryEvent)? {
        var index = cursor
        while true {
            while index < events.count {
                if predicate(events[index]) { return (index, events[index]) }
                index += 1
            }
            if isFinished || Task.isCancelled { return nil }
            await changed()
        }
    }

    /// Resumes every waiter so a deadline can interrupt it.
    func interruptWaiters() { wakeAll() }

    /// `first(from:where:)` with a deadline, for integration tests against a real
    /// avahi-daemon: throws `TimedOut` instead of hanging when the harness is broken.
    func awaitEvent(
        _ what: String, within seconds: Double = 20, from cursor: Int = 0,
        where predicate: @escaping @Sendable (DiscoveryEvent) -> Bool
    ) async throws -> (index: Int, event: DiscoveryEvent) {
        let found = try await withThrowingTaskGroup(
            of: (index: Int, event: DiscoveryEvent)?.self
        ) { group in
            group.addTask { await self.first(from: cursor, where: predicate) }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            self.interruptWaiters()
            return first
        }
        guard let found else { throw TimedOut(what: what, seen: events) }
        return found
    }
}
