/// Resolves that failed and are tried again, with backoff, while the browser still lists the
/// service. Pure (the caller passes the time); owned by the Avahi engine and used only on
/// Avahi's poll thread.
///
/// Why: avahi-daemon's service resolver gives up after 5 s (`AVAHI_ERR_TIMEOUT`) when the
/// peer's responder answers late, and creating a resolver is a D-Bus call that can time out
/// too. The browser reports a service once, until it is removed, so a resolve given up on
/// left that peer unknown to this node for as long as its PTR record stayed cached (75 min).
/// With 50 hosts on 2 cores this is how pairs stayed missing for good (docs/benchmarks.md,
/// "Nodes on one LAN").
///
/// `Request` is what the engine needs to create the resolver again.
package struct ResolveRetries<Request: Sendable>: Sendable {
    /// The wait after the first failure; it doubles per failure up to `maxDelay`.
    package static var firstDelay: Duration { .seconds(1) }
    /// The longest wait: a stale record (a host gone without goodbye) costs one resolve a
    /// minute until its PTR expires, not more.
    package static var maxDelay: Duration { .seconds(60) }

    private struct Entry: Sendable {
        var request: Request
        /// Failures since the slot last resolved.
        var failures: Int
        /// When to try again; nil while the retry is under way.
        var due: ContinuousClock.Instant?
    }

    private var entries: [SlotKey: Entry] = [:]

    package init() {}

    /// The wait after `failures` consecutive failures: 1 s, 2 s, 4 s, … 60 s.
    package static func delay(afterFailures failures: Int) -> Duration {
        let exponent = min(max(failures - 1, 0), 6)
        return min(firstDelay * (1 << exponent), maxDelay)
    }

    /// The resolve of `slot` failed at `now`: it is due again after the returned delay,
    /// longer for each failure in a row.
    @discardableResult
    package mutating func failed(_ slot: SlotKey, request: Request, at now: ContinuousClock.Instant)
        -> Duration
    {
        let failures = (entries[slot]?.failures ?? 0) + 1
        let delay = Self.delay(afterFailures: failures)
        entries[slot] = Entry(request: request, failures: failures, due: now + delay)
        return delay
    }

    /// The slot resolved: its next failure starts the backoff from the beginning.
    package mutating func resolved(_ slot: SlotKey) {
        entries[slot] = nil
    }

    /// The browser removed the service (or the client went): no more retries for it.
    package mutating func cancel(_ slot: SlotKey) {
        entries[slot] = nil
    }

    package mutating func cancelAll() {
        entries = [:]
    }

    /// The slots due at `now`, earliest first, with their requests. Each stays known (so a
    /// further failure backs off longer) but is not returned again until it fails again.
    package mutating func takeDue(at now: ContinuousClock.Instant) -> [(SlotKey, Request)] {
        let due = entries.compactMap { slot, entry -> (SlotKey, ContinuousClock.Instant)? in
            guard let at = entry.due, at <= now else { return nil }
            return (slot, at)
        }.sorted { $0.1 < $1.1 }
        return due.compactMap { slot, _ in
            guard var entry = entries[slot] else { return nil }
            entry.due = nil
            entries[slot] = entry
            return (slot, entry.request)
        }
    }

    /// The earliest time a retry is due, nil when none waits.
    package var nextDue: ContinuousClock.Instant? {
        entries.values.compactMap(\.due).min()
    }

    /// Failures in a row of `slot` (0 when it is not waiting or has resolved).
    package func failures(of slot: SlotKey) -> Int {
        entries[slot]?.failures ?? 0
    }
}
