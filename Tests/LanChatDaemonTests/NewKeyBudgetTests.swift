import LanChatCore
import Testing

@testable import LanChatDaemon

/// §3.8's per-IP throttling of new peers (found by QA: one host's fresh key per connection,
/// 57 pins and warnings in an afternoon).
@Suite struct NewKeyBudgetTests {
    let start = ContinuousClock.now

    @Test func anAddressBringsSoManyNewKeysAnHourAndIsSaidOnce() {
        var budget = NewKeyBudget()
        for _ in 0..<NewKeyBudget.perAddress {
            #expect(budget.admit(from: "10.0.0.9", at: start) == .admitted)
        }
        #expect(budget.admit(from: "10.0.0.9", at: start) == .refused(firstInWindow: true))
        #expect(
            budget.admit(from: "10.0.0.9", at: start + .seconds(60))
                == .refused(firstInWindow: false))
        // Another host is not held by this one.
        #expect(budget.admit(from: "10.0.0.10", at: start) == .admitted)
        // An hour on, the first ones no longer count; told again after the next fill.
        let later = start + NewKeyBudget.window
        #expect(budget.admit(from: "10.0.0.9", at: later) == .admitted)
        for _ in 1..<NewKeyBudget.perAddress { _ = budget.admit(from: "10.0.0.9", at: later) }
        #expect(budget.admit(from: "10.0.0.9", at: later) == .refused(firstInWindow: true))
    }

    @Test func aMappedIPv4AddressCountsAsItsIPv4() {
        #expect(NewKeyBudget.plainAddress(Endpoint(host: "::ffff:10.0.0.5", port: 1)) == "10.0.0.5")
        #expect(NewKeyBudget.plainAddress(Endpoint(host: "10.0.0.5", port: 1)) == "10.0.0.5")
        #expect(NewKeyBudget.plainAddress(Endpoint(host: "fe80::1", port: 1)) == "fe80::1")
        #expect(
            NewKeyBudget.plainAddress(Endpoint(host: "::ffff:127.0.0.1", port: 1)) == "127.0.0.1")
    }

    @Test func loopbackIsNeverHeld() {
        var budget = NewKeyBudget()
        for address in ["127.0.0.1", "::1"] {
            for _ in 0...(2 * NewKeyBudget.perAddress) {
                #expect(budget.admit(from: address, at: start) == .admitted)
            }
        }
    }
}
