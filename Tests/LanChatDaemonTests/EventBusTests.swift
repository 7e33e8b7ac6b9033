import LanChatCore
import Testing

@testable import LanChatDaemon

/// `send --wait` subscribes before it stores, and may then fail to store and drop the
/// subscription without ever iterating it: that must not leave a subscriber behind.
@Suite struct EventBusTests {
    static let peer = PeerKey(bytes: [UInt8](repeating: 0x11, count: 31) + [0x01])

    @Test func aSubscriptionDroppedUnreadUnsubscribes() {
        let bus = EventBus()
        do {
            let subscription = bus.subscribe()
            #expect(bus.subscriberCount == 1)
            _ = subscription
        }
        #expect(bus.subscriberCount == 0)
    }

    @Test func eventsPublishedAfterSubscribingArriveInOrder() async throws {
        let bus = EventBus()
        let key = try #require(Self.peer)
        bus.publish(.acknowledged(peer: key, stream: 1, upTo: 0, at: 0))  // before: not seen
        var seen: [UInt64] = []
        do {
            let subscription = bus.subscribe()
            for seq in 1...3 {
                bus.publish(.acknowledged(peer: key, stream: 1, upTo: UInt64(seq), at: 0))
            }
            for await event in subscription {
                guard case .acknowledged(_, _, let upTo, _) = event else { continue }
                seen.append(upTo)
                if seen.count == 3 { break }
            }
        }
        #expect(seen == [1, 2, 3])
        #expect(bus.subscriberCount == 0)
    }

    /// The daemon's permanent listeners (typing, notify command) follow only what they use,
    /// so a status change nobody waits for is known to be unwatched and wakes no one.
    @Test func aSubscriptionGetsOnlyItsKindsAndPublishersSeeWhatIsFollowed() async throws {
        let bus = EventBus()
        let key = try #require(Self.peer)
        let typing = bus.subscribe(to: [.typingReceived, .messagesReceived])
        #expect(!bus.isFollowed(.statusChanged))
        #expect(!bus.isFollowed(.acknowledged))
        #expect(bus.isFollowed(.typingReceived))
        bus.publish(.acknowledged(peer: key, stream: 1, upTo: 1, at: 0))
        bus.publish(.typingReceived(peer: key, true))
        var iterator = typing.makeAsyncIterator()
        let first = await iterator.next()
        guard case .typingReceived(_, true) = first else {
            Issue.record("expected the typing event first, got \(String(describing: first))")
            return
        }
        do {
            let waiter = bus.subscribe(to: StatusWaiter.followedKinds)
            #expect(bus.isFollowed(.statusChanged))
            _ = waiter
        }
        #expect(!bus.isFollowed(.statusChanged))
    }
}
