/// Lets one "handshake failed" line per source address through per interval (10 s) and
/// counts the ones it holds back, so a flood of bad handshakes writes a few lines, not
/// thousands (issue 9). A pure value fed the time, like `AdmissionPolicy`; the transport
/// keeps one behind a lock.
struct FailureLogThrottle: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// What to do with one failure.
    enum Decision: Equatable, Sendable {
        /// Hold the line back; it is counted.
        case suppress
        /// Log it, saying how many were held back since the last line for this address and
        /// how long ago that line was.
        case log(heldBack: Int, since: Duration)
    }

    let interval: Duration
    /// Addresses remembered before the quiet ones are forgotten.
    let trackedAddresses: Int
    private var lastLine: [String: (at: Instant, heldBack: Int)] = [:]

    init(interval: Duration = .seconds(10), trackedAddresses: Int = 1024) {
        self.interval = interval
        self.trackedAddresses = trackedAddresses
    }

    mutating func record(_ address: String, at now: Instant) -> Decision {
        if let last = lastLine[address], now - last.at < interval {
            lastLine[address] = (last.at, last.heldBack + 1)
            return .suppress
        }
        let previous = lastLine[address]
        if previous == nil, lastLine.count >= trackedAddresses {
            // Forget addresses whose interval is over and that held nothing back (their next
            // line is logged anyway), and those quiet for long (their count is dropped).
            let interval = self.interval
            lastLine = lastLine.filter { _, last in
                now - last.at < (last.heldBack > 0 ? interval * 6 : interval)
            }
        }
        lastLine[address] = (now, 0)
        return .log(heldBack: previous?.heldBack ?? 0, since: previous.map { now - $0.at } ?? .zero)
    }

    /// The counts held back for addresses whose interval is over, reset as they are returned:
    /// a burst from an address that never fails again would otherwise leave only its first
    /// line (found by QA: 64 failed handshakes, 16 lines). Called every interval by the
    /// daemon; an address is then said at most once per interval, as by `record`.
    mutating func heldBackDue(at now: Instant) -> [(
        address: String, heldBack: Int, since: Duration
    )] {
        var due: [(address: String, heldBack: Int, since: Duration)] = []
        for (address, last) in lastLine where last.heldBack > 0 && now - last.at >= interval {
            due.append((address, last.heldBack, now - last.at))
            lastLine[address] = (now, 0)
        }
        return due.sorted { $0.address < $1.address }
    }

    /// How many addresses are remembered (for tests of the bound).
    var trackedCount: Int { lastLine.count }

    /// The suffix of a logged line: "" or " (and 57 more failed handshakes from 10.0.0.5 in
    /// the last 12 s)".
    static func suffix(heldBack: Int, since: Duration, address: String) -> String {
        guard heldBack > 0 else { return "" }
        let noun = heldBack == 1 ? "failed handshake" : "failed handshakes"
        return " (and \(heldBack) more \(noun) from \(address) \(inTheLast(since)))"
    }

    /// The line for what `heldBackDue` returns: "handshake failed 57 more times from
    /// 10.0.0.5 in the last 12 s".
    static func summary(heldBack: Int, since: Duration, address: String) -> String {
        let times = heldBack == 1 ? "once more" : "\(heldBack) more times"
        return "handshake failed \(times) from \(address) \(inTheLast(since))"
    }

    private static func inTheLast(_ since: Duration) -> String {
        "in the last \(Int((since / .seconds(1)).rounded(.up))) s"
    }
}
