import LanChatCore
import Testing

/// A peer's frames cannot flood the log (found by QA: 3 000 MSGs, 6 000 lines).
@Suite struct LogLineBudgetTests {
    @Test func oneLineEveryTenSecondsSayingHowManyWereHeldBack() {
        let start = ContinuousClock.now
        var budget = LogLineBudget(interval: .seconds(10))
        #expect(budget.take(at: start) == 0)
        for second in 1..<10 { #expect(budget.take(at: start + .seconds(second)) == nil) }
        #expect(budget.take(at: start + budget.interval) == 9)
        #expect(budget.take(at: start + budget.interval * 2) == 0)
        #expect(LogLineBudget.suffix(0) == "")
        #expect(LogLineBudget.suffix(9) == " (and 9 more like it before)")
    }
}
