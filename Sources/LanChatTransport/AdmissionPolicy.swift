/// The inbound admission rules of PROTOCOL.md §4.6 as a pure value: no clock, no lock, no
/// I/O. `AdmissionControl` owns one behind a lock and passes the time in, so tests drive the
/// clock by hand instead of sleeping.
///
/// Per source address: a token bucket (burst 10, one token every 2 s, one token per admitted
/// connection), at most 4 handshakes in progress, and a failure penalty: 5 failed handshakes
/// within 60 s refuse the address for 60 s, doubling with each further penalty up to 1 h.
/// In total: at most 64 handshakes in progress.
struct AdmissionPolicy: Sendable {
    typealias Instant = ContinuousClock.Instant

    struct Limits: Sendable {
        var maxPending = 64
        var maxPendingPerAddress = 4
        var burst = 10
        var refillInterval: Duration = .seconds(2)
        var failuresBeforePenalty = 5
        var failureWindow: Duration = .seconds(60)
        var firstPenalty: Duration = .seconds(60)
        var longestPenalty: Duration = .seconds(3600)
        /// Addresses tracked before idle ones are forgotten (an IPv6 attacker has many).
        var trackedAddresses = 4096
    }

    /// Why a connection is refused; nil from `admit` means it was admitted.
    enum Refusal: Equatable, Sendable, CustomStringConvertible {
        case tooManyInProgress
        case tooManyFromAddress
        case rateLimited
        case penalized(until: Instant)

        var description: String {
            switch self {
            case .tooManyInProgress: "too many handshakes in progress"
            case .tooManyFromAddress: "too many handshakes in progress from this address"
            case .rateLimited: "connection rate limit of this address reached"
            case .penalized: "refused after repeated failed handshakes"
            }
        }
    }

    /// What is known about one source address.
    private struct Record {
        var tokens: Double
        var refilledAt: Instant
        var pending = 0
        /// Failed handshakes within the failure window, oldest first (at most the threshold).
        var failures: [Instant] = []
        var penalizedUntil: Instant?
        /// The next penalty's length; it doubles after each one and starts over after an
        /// hour without one.
        var nextPenalty: Duration

        /// Nothing here would change the next decision: the record may be forgotten.
        func isIdle(at now: Instant, limits: Limits) -> Bool {
            pending == 0 && failures.allSatisfy { now - $0 >= limits.failureWindow }
                && (penalizedUntil.map { now - $0 >= limits.longestPenalty } ?? true)
                && tokens + Double((now - refilledAt) / limits.refillInterval)
                    >= Double(limits.burst)
        }
    }

    let limits: Limits
    private var records: [String: Record] = [:]
    private(set) var pendingTotal = 0
    /// Handshakes finished, failed or not.
    private(set) var finishedTotal = 0
    /// The table size at which idle records are next swept (amortised: it doubles when a
    /// sweep frees little, so a flood from many addresses does not sweep on every call).
    private var sweepAt: Int

    init(limits: Limits = .init()) {
        self.limits = limits
        self.sweepAt = limits.trackedAddresses
    }

    /// Decides on a connection from `address` that was just accepted. When it is admitted
    /// (nil), it holds a handshake slot until `finished` is called for it.
    mutating func admit(_ address: String, at now: Instant) -> Refusal? {
        var record =
            records[address]
            ?? Record(
                tokens: Double(limits.burst), refilledAt: now, nextPenalty: limits.firstPenalty)
        defer {
            records[address] = record
            sweepIfLarge(at: now)
        }
        if let until = record.penalizedUntil {
            if now < until { return .penalized(until: until) }
            if now - until >= limits.longestPenalty {
                record.penalizedUntil = nil
                record.nextPenalty = limits.firstPenalty
            }
        }
        record.tokens = min(
            Double(limits.burst),
            record.tokens + (now - record.refilledAt) / limits.refillInterval)
        record.refilledAt = now
        guard pendingTotal < limits.maxPending else { return .tooManyInProgress }
        guard record.pending < limits.maxPendingPerAddress else { return .tooManyFromAddress }
        guard record.tokens >= 1 else { return .rateLimited }
        record.tokens -= 1
        record.pending += 1
        pendingTotal += 1
        return nil
    }

    /// An admitted handshake from `address` is over. A failed one counts towards the
    /// penalty; a cancelled one (we are stopping) does not.
    mutating func finished(_ address: String, failed: Bool, at now: Instant) {
        guard var record = records[address], record.pending > 0 else { return }
        record.pending -= 1
        pendingTotal -= 1
        finishedTotal += 1
        if failed {
            record.failures.removeAll { now - $0 >= limits.failureWindow }
            record.failures.append(now)
            if record.failures.count >= limits.failuresBeforePenalty {
                record.penalizedUntil = now + record.nextPenalty
                record.nextPenalty = min(record.nextPenalty * 2, limits.longestPenalty)
                record.failures = []
            }
        }
        records[address] = record
        sweepIfLarge(at: now)
    }

    /// How many addresses are remembered (for tests of the bound).
    var trackedCount: Int { records.count }

    private mutating func sweepIfLarge(at now: Instant) {
        guard records.count > sweepAt else { return }
        let limits = self.limits
        records = records.filter { !$0.value.isIdle(at: now, limits: limits) }
        sweepAt = max(limits.trackedAddresses, records.count * 2)
    }
}
