import LanChatClient
import LanChatControl
import LanChatCore
import Testing

@testable import LanChatDaemon

/// PROTOCOL.md §9.6: the receiver shows typing until 3 s after the last TYPING(1), or until
/// TYPING(0) or a MSG; `peer.typing` events are live only; the sender's 2 s rate limit.
@Suite("Typing", .timeLimit(.minutes(2)))
struct TypingTests {
    static func key(_ byte: UInt8) throws -> PeerKey {
        try #require(PeerKey(bytes: [UInt8](repeating: byte, count: 32)))
    }

    @Test func anIndicatorLastsThreeSecondsAfterTheLastTyping() throws {
        let bob = try Self.key(7)
        var timers = TypingTimers()
        let start = ContinuousClock.now
        let step1 = timers.received(true, from: bob, at: start)
        #expect(step1 == true)
        // Renewed, and announced again: a watch that started meanwhile learns it.
        let step2 = timers.received(true, from: bob, at: start + .seconds(2))
        #expect(step2 == true)
        let step3 = timers.expire(at: start + .milliseconds(4999)).isEmpty
        #expect(step3)
        #expect(timers.nextDeadline == start + .seconds(5))
        let step4 = timers.expire(at: start + .seconds(5))
        #expect(step4 == [bob])
        #expect(timers.nextDeadline == nil)
    }

    @Test func typingZeroOrAMessageEndsItAndOnlyAShownIndicatorIsEnded() throws {
        let bob = try Self.key(7)
        let carol = try Self.key(9)
        var timers = TypingTimers()
        let start = ContinuousClock.now
        let step5 = timers.received(false, from: bob, at: start)
        #expect(step5 == nil)
        let step6 = timers.messageArrived(from: bob)
        #expect(!step6)
        _ = timers.received(true, from: bob, at: start)
        _ = timers.received(true, from: carol, at: start)
        let step7 = timers.received(false, from: bob, at: start)
        #expect(step7 == false)
        let step8 = timers.messageArrived(from: carol)
        #expect(step8)
        #expect(timers.deadlines.isEmpty)
    }

    /// The service on the injected clock: TYPING(1) shows at once, ends when the clock
    /// reaches 3 s; a MSG ends it early. Only live events, through the feed.
    @Test func theIndicatorEndsOnTheInjectedClockAndWhenAMessageArrives() async throws {
        let bob = try Self.key(7)
        let carol = try Self.key(9)
        let clock = ManualClock()
        let bus = EventBus()
        let feed = EventFeed()
        let watcher = feed.register()
        let indicator = TypingIndicator(events: bus, feed: feed, clock: clock.daemonClock)
        let running = Task { try await indicator.run() }
        defer { running.cancel() }
        // The service subscribes as it starts; publish until it listens.
        while bus.subscriberCount == 0 { await Task.yield() }

        bus.publish(.typingReceived(peer: bob, true))
        #expect(await Self.next(watcher) == [true])
        clock.advance(by: .milliseconds(2999))
        bus.publish(.typingReceived(peer: bob, true))  // renewed at 2.999 s
        #expect(await Self.next(watcher) == [true])
        clock.advance(by: .milliseconds(2))
        bus.publish(.typingReceived(peer: carol, true))
        // At 3.001 s bob's indicator is still shown (renewed); carol's starts.
        #expect(await Self.next(watcher) == [true])
        clock.advance(by: .seconds(3))
        #expect(await Self.next(watcher) == [false, false])

        bus.publish(.typingReceived(peer: bob, true))
        #expect(await Self.next(watcher) == [true])
        bus.publish(.messagesReceived(peer: bob, []))
        #expect(await Self.next(watcher) == [false])
    }

    /// Waits for the feed to offer live events; their `typing` values.
    static func next(_ watcher: EventFeed.Watcher) async -> [Bool] {
        while true {
            let live = watcher.takeLive()
            if !live.isEmpty { return live.compactMap(\.typing) }
            await watcher.wakeup.wait(until: nil)
        }
    }

    @Test func typingReachesThePeersWatchAndEndsThreeSecondsLater() async throws {
        try await withConnectedPair { alice, bob in
            let watching = Task {
                try await ReadingTests.collect(bob.client, WatchParams(peer: "alice")) {
                    $0.filter { $0.type == .peerTyping }.count == 2
                }
            }
            // The watch is registered once its stream started; typing before that is lost.
            try await eventually("bob's watch is registered") {
                bob.daemon.messenger.eventFeed.watcherCount == 1
            }
            let first = try await alice.client.typing(TypingParams(peer: "bob", typing: true))
            #expect(first.sent)
            // The daemon's own rate limit: within 2 s, a second TYPING(1) does not go out.
            let second = try await alice.client.typing(TypingParams(peer: "bob", typing: true))
            #expect(!second.sent)
            let events = try await watching.value.events.filter { $0.type == .peerTyping }
            #expect(events.map(\.typing) == [true, false])
            #expect(events.allSatisfy { $0.peer?.id == alice.id })
            // Live only: nothing of it is in the event log.
            let replay = try await ReadingTests.collect(bob.client, WatchParams(since: "0")) {
                _ in true
            }
            #expect(!replay.events.contains { $0.type == .peerTyping })
        }
    }

    @Test func aMessageEndsTheIndicatorAndTypingToAnOfflinePeerIsNotSent() async throws {
        try await withConnectedPair { alice, bob in
            let watching = Task {
                try await ReadingTests.collect(bob.client, WatchParams(peer: "alice")) {
                    $0.filter { $0.type == .peerTyping }.count == 2
                }
            }
            try await eventually("bob's watch is registered") {
                bob.daemon.messenger.eventFeed.watcherCount == 1
            }
            #expect(try await alice.client.typing(TypingParams(peer: "bob", typing: true)).sent)
            _ = try await alice.client.send(SendParams(peer: "bob", text: "done typing"))
            let events = try await watching.value.events
            let typing = events.filter { $0.type == .peerTyping }.map(\.typing)
            #expect(typing == [true, false])
            try await bob.stopAndWaitOffline(seenBy: alice)
            #expect(!(try await alice.client.typing(TypingParams(peer: "bob", typing: true)).sent))
            do {
                _ = try await alice.client.typing(TypingParams(peer: "nobody", typing: true))
                Issue.record("an unknown peer was accepted")
            } catch let error as ControlError {
                #expect(error.exitCode == 67)
            }
        }
    }
}
