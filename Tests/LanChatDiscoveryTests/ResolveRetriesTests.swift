import LanChatCore
import LanChatDiscovery
import Testing

/// Failed resolves are tried again with backoff until they resolve or the browser removes the
/// service; before, a resolver that timed out left its peer unknown for good.
@Suite struct ResolveRetriesTests {
    static let start = ContinuousClock.now
    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .seconds(seconds) }
    static let bob = SlotKey(
        instance: InstanceKey(name: "bob (ABCD-EFGH)", interface: "eth0"), family: .ipv4)
    static let carol = SlotKey(
        instance: InstanceKey(name: "carol (IJKL-MNOP)", interface: "eth0"), family: .ipv6)

    @Test func aFailedResolveIsDueAgainAfterOneSecond() {
        var retries = ResolveRetries<String>()
        #expect(retries.failed(Self.bob, request: "bob", at: Self.at(0)) == .seconds(1))
        #expect(retries.nextDue == Self.at(1))
        #expect(retries.takeDue(at: Self.at(0.999)).isEmpty)
        let due = retries.takeDue(at: Self.at(1))
        #expect(due.map(\.0) == [Self.bob])
        #expect(due.map(\.1) == ["bob"])
        // Under way: not handed out twice, nothing else waits.
        #expect(retries.takeDue(at: Self.at(100)).isEmpty)
        #expect(retries.nextDue == nil)
    }

    @Test func eachFailureInARowDoublesTheWaitUpToOneMinute() {
        var retries = ResolveRetries<String>()
        var now = Self.at(0)
        var waits: [Duration] = []
        for _ in 0..<9 {
            let wait = retries.failed(Self.bob, request: "bob", at: now)
            waits.append(wait)
            now += wait
            #expect(retries.takeDue(at: now).map(\.0) == [Self.bob])
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        #expect(retries.failures(of: Self.bob) == 9)
    }

    @Test func resolvingStartsTheBackoffAgain() {
        var retries = ResolveRetries<String>()
        retries.failed(Self.bob, request: "bob", at: Self.at(0))
        retries.failed(Self.bob, request: "bob", at: Self.at(1))
        retries.resolved(Self.bob)
        #expect(retries.failures(of: Self.bob) == 0)
        #expect(retries.nextDue == nil)
        #expect(retries.failed(Self.bob, request: "bob", at: Self.at(10)) == .seconds(1))
    }

    @Test func aRemovedServiceIsNotTriedAgain() {
        var retries = ResolveRetries<String>()
        retries.failed(Self.bob, request: "bob", at: Self.at(0))
        retries.failed(Self.carol, request: "carol", at: Self.at(0))
        retries.cancel(Self.bob)
        #expect(retries.takeDue(at: Self.at(5)).map(\.0) == [Self.carol])
        retries.failed(Self.carol, request: "carol", at: Self.at(5))
        retries.cancelAll()
        #expect(retries.nextDue == nil)
        #expect(retries.takeDue(at: Self.at(100)).isEmpty)
    }

    @Test func dueSlotsComeEarliestFirst() {
        var retries = ResolveRetries<String>()
        retries.failed(Self.carol, request: "carol", at: Self.at(0.5))
        retries.failed(Self.bob, request: "bob", at: Self.at(0))
        #expect(retries.nextDue == Self.at(1))
        #expect(retries.takeDue(at: Self.at(2)).map(\.1) == ["bob", "carol"])
    }
}
