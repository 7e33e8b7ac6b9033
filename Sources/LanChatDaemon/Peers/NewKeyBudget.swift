import LanChatCore
import LanChatTransport

/// PROTOCOL.md §3.8: "rate limits on 'new peer' prompts and per-IP throttling". A key met
/// for the first time is pinned (TOFU), listed by `who --all` and given a link for the life
/// of the daemon; one under a known name is a key-change warning in `who` and `status`. A
/// host that makes a new key for each connection (found by QA: 57 in an afternoon) could
/// grow all of that without end. So an address (`SourceAddress`: an IPv6 one as its /64)
/// brings at most `perAddress` keys never met within `window` (room for a host shared by
/// many users, each with a daemon of their own); more are refused at the handshake. Keys already pinned (met before, or named by `--peer
/// ID@…`, `add`, a group of ours) never count, nor does loopback: what comes from this
/// machine is no LAN host's doing. Pure: `LinkRegistry` owns one behind its lock and passes
/// the time in.
struct NewKeyBudget {
    typealias Instant = ContinuousClock.Instant

    static let perAddress = 16
    static let window: Duration = .seconds(3600)
    /// Addresses tracked before the idle ones are forgotten.
    static let trackedAddresses = 4096

    enum Decision: Equatable {
        case admitted
        /// `firstInWindow`: the first refusal of this address since its count filled, the
        /// one worth a log line.
        case refused(firstInWindow: Bool)
    }

    private struct Record {
        var contacts: [Instant] = []
        var warned = false
    }

    private var records: [String: Record] = [:]

    /// Whether one more new key from `source` may be met at `now`; counted when so.
    mutating func admit(from source: SourceAddress, at now: Instant) -> Decision {
        if source.isLoopback { return .admitted }
        let address = source.description
        var record = records[address] ?? Record()
        record.contacts.removeAll { now - $0 >= Self.window }
        if record.contacts.isEmpty { record.warned = false }
        defer {
            records[address] = record
            if records.count > Self.trackedAddresses { forgetIdle(at: now) }
        }
        guard record.contacts.count < Self.perAddress else {
            let first = !record.warned
            record.warned = true
            return .refused(firstInWindow: first)
        }
        record.contacts.append(now)
        return .admitted
    }

    private mutating func forgetIdle(at now: Instant) {
        records = records.filter { _, record in
            record.contacts.contains { now - $0 < Self.window }
        }
    }
}
