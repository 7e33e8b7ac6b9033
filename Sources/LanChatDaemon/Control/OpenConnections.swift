import LanChatControl
import NIOCore
import Synchronization

/// The control connections being served, at most `limit`. When a new one would exceed it,
/// the one idle for longest is closed to make room, so idle clients can never lock out a
/// `lanchat status`; failing that, a busy one whose client has closed its side (a `send
/// --wait` interrupted: the client is gone or wants one last answer, and its wait may last
/// a day); only when every one is busy with a client still there is the new one refused.
final class OpenConnections: Sendable {
    private let limit: Int
    private let slots = Mutex<[ObjectIdentifier: Slot]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// A slot for `channel`, or nil when `limit` connections are busy.
    func take(for channel: any Channel, now: ContinuousClock.Instant = .now) -> Slot? {
        let slot = Slot(owner: self, channel: channel, now: now)
        let evicted: Slot?? = slots.withLock { slots in
            var evicted: Slot?
            if slots.count >= limit {
                let closable =
                    slots.values.filter { !$0.isBusy }.min { $0.idleSince < $1.idleSince }
                    ?? slots.values.filter(\.clientEnded).min { $0.idleSince < $1.idleSince }
                guard let idlest = closable else { return .none }
                slots[ObjectIdentifier(idlest)] = nil
                evicted = idlest
            }
            slots[ObjectIdentifier(slot)] = slot
            return .some(evicted)
        }
        guard case .some(let idlest) = evicted else { return nil }
        if let idlest { evict(idlest) }
        return slot
    }

    /// Closes a connection to make room, after one error line that says why, as a refused
    /// connection is told (`ControlServer.errorLine`): a client whose connection just ends can
    /// only guess at a crash. The line is written without waiting: a client that does not read
    /// may have a full socket buffer, and must not keep its descriptor by that.
    private func evict(_ slot: Slot) {
        let why =
            slot.clientEnded
            ? "its client had closed its side" : "it was the one idle for longest"
        let line = ControlServer.errorLine(
            .unavailable(
                "lanchatd closed this control connection to make room for a new one (at most "
                    + "\(limit) are served at once) because \(why); connect again to go on"))
        let channel = slot.channel
        channel.eventLoop.execute {
            channel.writeAndFlush(line, promise: nil)
            channel.close(promise: nil)
        }
    }

    var openCount: Int { slots.withLock { $0.count } }

    /// The daemon is stopping: every connection idle now is closed, and one busy is closed
    /// once it has written its answer (`Slot.busy` refuses a request that comes later).
    func closeIdle() {
        let idle = slots.withLock { slots in slots.values.filter { $0.closeIfIdle() } }
        for slot in idle {
            let channel = slot.channel
            channel.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    fileprivate func remove(_ slot: Slot) {
        _ = slots.withLock { $0.removeValue(forKey: ObjectIdentifier(slot)) }
    }

    /// One connection's place, given back when it ends.
    final class Slot: Sendable {
        private let owner: OpenConnections
        let channel: any Channel
        private let activity: Mutex<(busy: Bool, idleSince: ContinuousClock.Instant, closing: Bool)>
        /// The client closed its side (`InputEndWatcher`): it sends nothing more.
        private let ended = Atomic(false)

        fileprivate init(owner: OpenConnections, channel: any Channel, now: ContinuousClock.Instant)
        {
            self.owner = owner
            self.channel = channel
            self.activity = Mutex((false, now, false))
        }

        var isBusy: Bool { activity.withLock { $0.busy } }
        var clientEnded: Bool { ended.load(ordering: .relaxed) }
        func clientClosedItsSide() { ended.store(true, ordering: .relaxed) }
        var idleSince: ContinuousClock.Instant { activity.withLock { $0.idleSince } }

        /// A request is being answered: not to be closed for room meanwhile. False when the
        /// connection is being closed for the stop: the request is not to be run at all (its
        /// answer could not be written).
        @discardableResult
        func busy() -> Bool {
            activity.withLock { activity in
                guard !activity.closing else { return false }
                activity.busy = true
                return true
            }
        }

        func idle(now: ContinuousClock.Instant = .now) {
            activity.withLock { $0 = (false, now, $0.closing) }
        }

        /// Marks the slot closing if no request is being answered; says whether it did.
        fileprivate func closeIfIdle() -> Bool {
            activity.withLock { activity in
                guard !activity.busy else { return false }
                activity.closing = true
                return true
            }
        }

        func release() { owner.remove(self) }
    }
}

/// Tells a connection's slot when its client has closed its side: the serving task learns it
/// only at its next read, which a request being answered (a `send --wait`) delays.
final class InputEndWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    let slot: OpenConnections.Slot

    init(slot: OpenConnections.Slot) {
        self.slot = slot
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { slot.clientClosedItsSide() }
        context.fireUserInboundEventTriggered(event)
    }
}
