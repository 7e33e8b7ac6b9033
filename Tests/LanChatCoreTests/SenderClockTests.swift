import LanChatCore
import Testing

/// What a received message shows as its time (found by QA: dates from year 0 to 9999).
@Suite struct SenderClockTests {
    let now: Int64 = 1_800_000_000_000

    @Test func aPlausibleDateIsKeptAlsoWeeksOld() {
        #expect(SenderClock.shownTime(sentAt: now - 1_000, receivedAt: now) == now - 1_000)
        let weeksAgo = now - 40 * 86_400_000
        #expect(SenderClock.shownTime(sentAt: weeksAgo, receivedAt: now) == weeksAgo)
    }

    @Test func aDateAfterWeReceivedItIsOurs() {
        #expect(SenderClock.shownTime(sentAt: now + 90_000, receivedAt: now) == now)
        #expect(SenderClock.shownTime(sentAt: 253_402_300_799_000, receivedAt: now) == now)
        #expect(SenderClock.shownTime(sentAt: .max, receivedAt: now) == now)
    }

    @Test func aDateBeforeAnyClockWasSetIsOurs() {
        for sentAt: Int64 in [.min, -62_135_596_800_001, -1, 0, 86_400_000] {
            #expect(SenderClock.shownTime(sentAt: sentAt, receivedAt: now) == now, "\(sentAt)")
        }
        let earliest = SenderClock.earliestPlausible
        #expect(SenderClock.shownTime(sentAt: earliest, receivedAt: now) == earliest)
    }
}
