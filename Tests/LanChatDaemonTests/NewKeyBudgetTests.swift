import LanChatCore
import LanChatTransport
import Testing

@testable import LanChatDaemon

/// §3.8's per-IP throttling of new peers (found by QA: one host's fresh key per connection,
/// 57 pins and warnings in an afternoon).
@Suite struct NewKeyBudgetTests {
    let start = ContinuousClock.now

    @Test func anAddressBringsSoManyNewKeysAnHourAndIsSaidOnce() {
        var budget = NewKeyBudget()
        for _ in 0..<NewKeyBudget.perAddress {
            #expect(budget.admit(from: SourceAddress(host: "10.0.0.9"), at: start) == .admitted)
        }
        #expect(
            budget.admit(from: SourceAddress(host: "10.0.0.9"), at: start)
                == .refused(firstInWindow: true))
        #expect(
            budget.admit(from: SourceAddress(host: "10.0.0.9"), at: start + .seconds(60))
                == .refused(firstInWindow: false))
        // Another host is not held by this one.
        #expect(budget.admit(from: SourceAddress(host: "10.0.0.10"), at: start) == .admitted)
        // An hour on, the first ones no longer count; told again after the next fill.
        let later = start + NewKeyBudget.window
        #expect(budget.admit(from: SourceAddress(host: "10.0.0.9"), at: later) == .admitted)
        for _ in 1..<NewKeyBudget.perAddress {
            _ = budget.admit(from: SourceAddress(host: "10.0.0.9"), at: later)
        }
        #expect(
            budget.admit(from: SourceAddress(host: "10.0.0.9"), at: later)
                == .refused(firstInWindow: true))
    }

    @Test func anIPv6HostCountsAsItsSlash64() {
        var budget = NewKeyBudget()
        // A host picks a new address in its /64 for each key: one count all the same.
        for index in 0..<NewKeyBudget.perAddress {
            #expect(
                budget.admit(from: SourceAddress(host: "2001:db8:1:2::\(index + 1)"), at: start)
                    == .admitted)
        }
        #expect(
            budget.admit(from: SourceAddress(host: "2001:db8:1:2:aaaa::9"), at: start)
                == .refused(firstInWindow: true))
        #expect(budget.admit(from: SourceAddress(host: "2001:db8:1:3::1"), at: start) == .admitted)
    }

    @Test func loopbackIsNeverHeld() {
        var budget = NewKeyBudget()
        for address in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] {
            for _ in 0...(2 * NewKeyBudget.perAddress) {
                #expect(budget.admit(from: SourceAddress(host: address), at: start) == .admitted)
            }
        }
    }
}
