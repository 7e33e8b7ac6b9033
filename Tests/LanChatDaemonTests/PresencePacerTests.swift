import LanChatCore
import Testing

@testable import LanChatDaemon

/// PRESENCE pacing (found by QA: 50 000 frames in half a second were 50 000 store writes and
/// durable events).
@Suite struct PresencePacerTests {
    let start = ContinuousClock.now

    static func presence(_ text: String) -> PresencePacer.Presence {
        .init(status: .away, text: text)
    }

    @Test func aFewAreAppliedAtOnceThenTheLatestIsHeldForItsTurn() {
        var pacer = PresencePacer()
        for n in 0..<PresencePacer.burst {
            #expect(pacer.offer(Self.presence("\(n)"), now: start) == Self.presence("\(n)"))
        }
        #expect(pacer.offer(Self.presence("held"), now: start) == nil)
        #expect(pacer.offer(Self.presence("newer"), now: start) == nil)
        #expect(pacer.held == Self.presence("newer"))
        let due = pacer.heldDue(now: start)
        #expect(due == start + PresencePacer.interval)
        #expect(pacer.takeHeld(now: start + .seconds(1)) == nil)
        #expect(pacer.takeHeld(now: start + PresencePacer.interval) == Self.presence("newer"))
        #expect(pacer.held == nil)
        #expect(pacer.heldDue(now: start + PresencePacer.interval) == nil)
    }

    @Test func whileOneIsHeldANewOneWaitsBehindItEvenWithATurnFree() {
        var pacer = PresencePacer()
        for n in 0...PresencePacer.burst { _ = pacer.offer(Self.presence("\(n)"), now: start) }
        // Two turns later: one goes to the frame held... whichever came last.
        let later = start + PresencePacer.interval * 2
        #expect(pacer.offer(Self.presence("last"), now: later) == nil)
        #expect(pacer.heldDue(now: later) == later)
        #expect(pacer.takeHeld(now: later) == Self.presence("last"))
    }

    @Test func aPersonsPaceIsNeverHeld() {
        var pacer = PresencePacer()
        for n in 0..<20 {
            let now = start + PresencePacer.interval * n
            #expect(pacer.offer(Self.presence("\(n)"), now: now) != nil)
        }
    }
}
