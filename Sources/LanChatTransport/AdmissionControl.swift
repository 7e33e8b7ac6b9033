import Synchronization

/// Inbound admission (PROTOCOL.md §4.6), shared by the listener's accept path and the
/// connections it admitted: `AdmissionPolicy` behind a lock, fed the current time.
final class AdmissionControl: Sendable {
    private let policy: Mutex<AdmissionPolicy>

    init(limits: AdmissionPolicy.Limits) {
        self.policy = Mutex(AdmissionPolicy(limits: limits))
    }

    /// Reserves a handshake slot for `address`; the refusal when it may not start one.
    func admit(_ address: String, now: ContinuousClock.Instant = .now) -> AdmissionPolicy.Refusal? {
        policy.withLock { $0.admit(address, at: now) }
    }

    /// Releases the slot `admit` reserved; a failed handshake counts towards the penalty.
    func release(_ address: String, failed: Bool, now: ContinuousClock.Instant = .now) {
        policy.withLock { $0.finished(address, failed: failed, at: now) }
    }

    var pendingCount: Int { policy.withLock { $0.pendingTotal } }
    /// Handshakes finished since the start, failed or not (tests wait for it).
    var finishedCount: Int { policy.withLock { $0.finishedTotal } }
}

/// Outbound handshakes in progress, capped apart from inbound ones: a flood of strangers
/// fills the inbound slots, never the budget we use to dial the peers we know.
final class DialBudget: Sendable {
    private let limit: Int
    private let inProgress = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// A slot for one dial, or nil when every slot is taken.
    func take() -> Slot? {
        let taken = inProgress.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        return taken ? Slot(budget: self) : nil
    }

    fileprivate func giveBack() {
        inProgress.withLock { $0 -= 1 }
    }

    var inProgressCount: Int { inProgress.withLock { $0 } }

    /// One dial's slot, given back once: when the handshake ends or the dial is over.
    final class Slot: Sendable {
        private let budget: DialBudget
        private let held = Mutex(true)

        fileprivate init(budget: DialBudget) {
            self.budget = budget
        }

        func release() {
            let wasHeld = held.withLock { held in
                defer { held = false }
                return held
            }
            if wasHeld { budget.giveBack() }
        }
    }
}
