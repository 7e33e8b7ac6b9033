import LanChatStore
import Testing

@testable import LanChatDaemon

/// When a message in flight is logged `sent`, and `queued` again (`SentReports`): only what
/// stayed unacknowledged a whole `delay`, each seq once per flow.
@Suite struct SentReportsTests {
    typealias Step = SentReports.Step
    let start = ContinuousClock.now
    let delay: Duration = .seconds(1)

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    /// `take` on `reports`, with the in-flight seqs of stream 7 (nil: none) at `milliseconds`.
    func look(
        _ reports: inout SentReports, _ seqs: ClosedRange<UInt64>?, at milliseconds: Int,
        stream: UInt64 = 7
    ) -> [Step] {
        reports.take(inFlight: seqs.map { (stream, $0) }, now: at(milliseconds), delay: delay)
    }

    @Test func aFlowingStreamLogsNothing() {
        var reports = SentReports()
        let look1 = look(&reports, nil, at: 0)
        #expect(look1.isEmpty)
        #expect(reports.nextLook(now: at(0), delay: delay) == nil)
        let look2 = look(&reports, 1...10, at: 0)
        #expect(look2.isEmpty)
        #expect(reports.nextLook(now: at(400), delay: delay) == .milliseconds(600))
        // A second later everything sampled was acknowledged: newer seqs only.
        let look3 = look(&reports, 11...30, at: 1_000)
        #expect(look3.isEmpty)
        let look4 = look(&reports, 31...40, at: 2_000)
        #expect(look4.isEmpty)
        let look5 = look(&reports, nil, at: 2_100)
        #expect(look5.isEmpty)
        #expect(!reports.isSampling)
    }

    @Test func whatStaysInFlightIsLoggedSentOnceThenQueuedWhenItsSessionEnds() {
        var reports = SentReports()
        _ = look(&reports, 1...10, at: 0)
        // Not yet a second: nothing.
        let look6 = look(&reports, 4...12, at: 900)
        #expect(look6.isEmpty)
        let look7 = look(&reports, 4...12, at: 1_000)
        #expect(look7 == [Step(status: .sent, stream: 7, seqs: 4...10)])
        // 11 and 12 a second later; 4 – 10 are not logged again.
        #expect(
            look(&reports, 6...15, at: 2_000) == [Step(status: .sent, stream: 7, seqs: 11...12)])
        // The session ends with 8 – 15 in flight: what was logged sent of them reverts.
        let dropped8 = reports.dropped((7, 8...15))
        #expect(dropped8)
        let look9 = look(&reports, nil, at: 2_100)
        #expect(look9 == [Step(status: .queued, stream: 7, seqs: 8...12)])
        // The next flow starts afresh.
        _ = look(&reports, 8...15, at: 3_000)
        let look10 = look(&reports, 8...15, at: 4_000)
        #expect(look10 == [Step(status: .sent, stream: 7, seqs: 8...15)])
    }

    @Test func aFlowEndingWithNothingLoggedRevertsNothing() {
        var reports = SentReports()
        _ = look(&reports, 1...3, at: 0)
        let dropped11 = reports.dropped((7, 1...3))
        #expect(!dropped11)
        let look12 = look(&reports, nil, at: 100)
        #expect(look12.isEmpty)
        // Another stream (a restart) is sampled afresh.
        _ = look(&reports, 1...3, at: 200, stream: 8)
        let look13 = look(&reports, 1...3, at: 1_300, stream: 9)
        #expect(look13.isEmpty)
    }
}
