import Synchronization

/// Caps unauthenticated inbound handshakes (PROTOCOL.md §4.6): at most N in total and M per
/// source address, so a slowloris or a reconnect storm from one host cannot starve others.
final class AdmissionControl: Sendable {
    private let total: Int
    private let perAddress: Int
    private let pending = Mutex<[String: Int]>([:])

    init(total: Int, perAddress: Int) {
        self.total = total
        self.perAddress = perAddress
    }

    /// Reserves a slot for a handshake from `address`; false when a cap is reached.
    func admit(_ address: String) -> Bool {
        pending.withLock { counts in
            let all = counts.values.reduce(0, +)
            guard all < total, counts[address, default: 0] < perAddress else { return false }
            counts[address, default: 0] += 1
            return true
        }
    }

    func release(_ address: String) {
        pending.withLock { counts in
            guard let count = counts[address] else { return }
            counts[address] = count > 1 ? count - 1 : nil
        }
    }

    var pendingCount: Int { pending.withLock { $0.values.reduce(0, +) } }
}
