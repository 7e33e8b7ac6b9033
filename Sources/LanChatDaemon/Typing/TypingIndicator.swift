import LanChatControl
import LanChatCore
import ServiceLifecycle
import Synchronization

/// Turns the peers' TYPING into live `peer.typing` events for `watch` streams (never stored,
/// `EventFeed.publishLive`). The one owner of `TypingTimers`.
///
/// A `Service`: its two loops are child tasks of `run()`. One reads the event bus (TYPING as
/// `.typingReceived`, and `.messagesReceived`, which ends a peer's indicator); the other
/// sleeps on the injected clock until the next indicator's 3 s are up. The links only
/// publish on the bus, so the inbound path never waits for this.
final class TypingIndicator: Service, Sendable {
    private let events: EventBus
    private let feed: EventFeed
    private let clock: DaemonClock
    private let timers = Mutex(TypingTimers())
    private let deadlineChanged = Wakeup()

    init(events: EventBus, feed: EventFeed, clock: DaemonClock) {
        self.events = events
        self.feed = feed
        self.clock = clock
    }

    func run() async throws {
        // Subscribed before the loops start: nothing published from now on is missed.
        let subscription = events.subscribe(to: [.typingReceived, .messagesReceived])
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.follow(subscription) }
                group.addTask { await self.expireDue() }
            }
        }
    }

    private func follow(_ subscription: AsyncStream<DaemonEvent>) async {
        for await event in subscription {
            switch event {
            case .typingReceived(let peer, let typing):
                let now = clock.monotonic()
                if let change = timers.withLock({ $0.received(typing, from: peer, at: now) }) {
                    announce(peer, typing: change)
                }
                deadlineChanged.signal()
            case .messagesReceived(let peer, _):
                if timers.withLock({ $0.messageArrived(from: peer) }) {
                    announce(peer, typing: false)
                }
            default:
                break
            }
        }
    }

    private func expireDue() async {
        while !Task.isCancelled {
            let now = clock.monotonic()
            for peer in timers.withLock({ $0.expire(at: now) }) {
                announce(peer, typing: false)
            }
            let next = timers.withLock { $0.nextDeadline }
            await deadlineChanged.wait(until: next, clock: clock)
        }
    }

    private func announce(_ peer: PeerKey, typing: Bool) {
        feed.publishLive(
            EventFeed.LiveEvent(
                type: .peerTyping, peer: peer, at: clock.wallMilliseconds(), typing: typing))
    }
}
