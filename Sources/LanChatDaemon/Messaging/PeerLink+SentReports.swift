import LanChatCore
import LanChatStore

/// `sent` in the event log (PRODUCT.md §4 `message.status`; found by QA: it was never
/// logged, so a message stuck at `sent` looked queued to `watch` and to `chat`).
///
/// Most messages are acknowledged within a millisecond of their write: a `sent` row for each
/// would be an event per message on the hot path, about as costly as the delivery it
/// precedes, for a state nobody could see. So a message is logged `sent` once it has been in
/// flight for `sentReportDelay` without its ACK (a peer that stopped reading, a cable pulled
/// before the dead timeout), and `queued` again when its session ends before the ACK
/// (PROTOCOL.md §9.5: it reverts). The delivery-mark loop does it between its rounds: it
/// wakes on ACKs, and while something is in flight, at least once a `sentReportDelay`.
extension PeerLink {
    static let sentReportDelay: Duration = .seconds(1)

    /// Messages were written to the session: a loop holding no sample sleeps until the next
    /// ACK, which a stuck peer never sends, so it is woken to take one (once per quiet spell,
    /// not once per write).
    func wroteMessages() {
        if !sentReports.isSampling { marksWakeup.signal() }
    }

    /// The session whose flow held `inFlight` is being replaced or has ended: what was logged
    /// `sent` of it and not acknowledged is `queued` again.
    func flowDropped(_ inFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)?) {
        if sentReports.dropped(inFlight) { marksWakeup.signal() }
    }

    /// Logs what the last samples say (see `SentReports`); returns how long until the next
    /// look is due, nil while nothing is in flight.
    func reportSent() async -> Duration? {
        let now = services.clock.monotonic()
        let steps = sentReports.take(inFlight: liveInFlight, now: now, delay: Self.sentReportDelay)
        for step in steps {
            do {
                try await services.store.logSent(
                    step.status, peer: key, stream: step.stream, seqs: step.seqs,
                    at: services.now())
            } catch {
                logger.error("cannot log messages as \(step.status): \(error)")
            }
        }
        return sentReports.nextLook(now: services.clock.monotonic(), delay: Self.sentReportDelay)
    }
}

/// The link's account of what the event log was told about messages in flight: the last
/// sample of the in-flight seqs, the seqs logged `sent` on the current flow, and those whose
/// flow ended before their ACK, to be logged `queued`. Pure: the link feeds it samples.
struct SentReports: Sendable {
    struct Step: Equatable, Sendable {
        var status: StoredStatus
        var stream: UInt64
        var seqs: ClosedRange<UInt64>
    }

    private var sample: (stream: UInt64, seqs: ClosedRange<UInt64>, at: ContinuousClock.Instant)?
    private var reported: (stream: UInt64, seqs: ClosedRange<UInt64>)?
    private var reverted: [Step] = []

    /// The flow ended (`inFlight`: what it still had in flight). Returns whether something
    /// logged `sent` is to be logged `queued`.
    mutating func dropped(_ inFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)?) -> Bool {
        defer {
            sample = nil
            reported = nil
        }
        guard let reported, let inFlight, reported.stream == inFlight.stream,
            let back = Self.overlap(reported.seqs, inFlight.seqs)
        else { return false }
        reverted.append(Step(status: .queued, stream: reported.stream, seqs: back))
        return true
    }

    /// What to log now, given what is in flight: first what reverted, then the seqs that
    /// were in flight at the last sample, taken at least `delay` ago, and still are.
    mutating func take(
        inFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)?, now: ContinuousClock.Instant,
        delay: Duration
    ) -> [Step] {
        var steps = reverted
        reverted = []
        guard let inFlight else {
            sample = nil
            return steps
        }
        guard let last = sample, last.stream == inFlight.stream else {
            sample = (inFlight.stream, inFlight.seqs, now)
            return steps
        }
        guard last.at.duration(to: now) >= delay else { return steps }
        sample = (inFlight.stream, inFlight.seqs, now)
        guard var late = Self.overlap(last.seqs, inFlight.seqs) else { return steps }
        if let reported, reported.stream == inFlight.stream {
            guard late.upperBound > reported.seqs.upperBound else { return steps }
            late = max(late.lowerBound, reported.seqs.upperBound + 1)...late.upperBound
            self.reported = (inFlight.stream, reported.seqs.lowerBound...late.upperBound)
        } else {
            self.reported = (inFlight.stream, late)
        }
        steps.append(Step(status: .sent, stream: inFlight.stream, seqs: late))
        return steps
    }

    /// Whether a sample is held: the loop then looks again by itself; otherwise a write
    /// must wake it.
    var isSampling: Bool { sample != nil }

    /// How long until the next sample is due; nil while nothing is sampled (nothing in
    /// flight).
    func nextLook(now: ContinuousClock.Instant, delay: Duration) -> Duration? {
        guard let sample else { return nil }
        return max(.zero, delay - sample.at.duration(to: now))
    }

    static func overlap(_ a: ClosedRange<UInt64>, _ b: ClosedRange<UInt64>)
        -> ClosedRange<UInt64>?
    {
        let lower = max(a.lowerBound, b.lowerBound)
        let upper = min(a.upperBound, b.upperBound)
        return lower <= upper ? lower...upper : nil
    }
}
