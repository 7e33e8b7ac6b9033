import Foundation
import LanChatControl
import LanChatCore
import LanChatStore
import LanChatTransport
import Logging

/// The daemon's use cases, one method per control API method. It validates, resolves peers,
/// talks to the store and hands live work to the peer links; it holds no state of its own.
final class Messenger: Sendable {
    let services: LinkServices
    let registry: LinkRegistry
    let connections: ConnectionManager
    let runtime: RuntimeFacts
    /// Wakes `watch` streams when the event log grows.
    let eventFeed: EventFeed

    init(
        services: LinkServices, registry: LinkRegistry, connections: ConnectionManager,
        runtime: RuntimeFacts, eventFeed: EventFeed
    ) {
        self.services = services
        self.registry = registry
        self.connections = connections
        self.runtime = runtime
        self.eventFeed = eventFeed
    }

    var store: MessageStore { services.store }
    var directory: PeerDirectory { services.directory }

    /// Stores the messages (`queued`), returns as soon as they are on disk, and starts them on
    /// their way; with `wait`/`waitRead`, answers when they are delivered/read or at timeout.
    ///
    /// Every param is checked before anything is stored: an error answer means nothing changed.
    /// With `idsOnly`, the answer carries the ids alone; the common case (no wait, one peer)
    /// then builds no message object at all.
    func send(_ params: SendParams) async throws(ControlError) -> SendResult {
        let texts = try Self.validatedTexts(params)
        let waitSeconds = try params.validatedWaitSeconds()
        let waitTarget: StatusWaiter.Target? =
            params.waitRead == true ? .read : params.wait == true ? .delivered : nil
        let idsOnly = params.idsOnly == true
        if let group = try await groupTarget(params.peer) {
            let result = try await sendToGroup(
                group, texts: texts,
                wait: waitTarget.map { ($0, waitSeconds ?? ParamsLimits.defaultTimeoutSeconds) })
            return idsOnly ? SendResult(ids: result.ids) : result
        }
        let peer = try conversationPeer(params.peer)
        guard peer.record.trust != .blocked else {
            throw .failed("\(peer.labelled) is blocked; unblock to send")
        }
        // Found by QA: a message to a key a newer one took over waited for ever, unsaid.
        if let replacement = peer.record.replacedBy {
            let newer = directory.entry(replacement)?.labelled ?? PeerDirectory.keyTag(replacement)
            throw .failed(
                "\(peer.labelled) was replaced by \(newer) (verify --link), which has its "
                    + "conversation: send to \(newer) instead")
        }
        // Before storing: from then on, every change to the messages is an event here.
        let subscription = waitTarget.map { _ in
            services.events.subscribe(to: StatusWaiter.followedKinds)
        }
        let stored: [StoredMessage]
        do {
            stored = try await store.enqueue(to: peer.key, texts: texts, at: services.now())
        } catch {
            throw .storeUnavailable("message not stored: \(error)")
        }
        // After the messages are stored, so an error answer still means nothing changed; and
        // a failure here is only logged, as the messages are stored and will go out.
        await sendingMakesContact(peer)
        await registry.link(for: peer.key).committed(stored)
        // Online is the common case: ask the connection manager (an actor hop on every send)
        // and look for a key that claims the peer's name only when the peer is away.
        var keyChange: KeyChangeInfo?
        if directory.entry(peer.key)?.sessions ?? 0 == 0 {
            keyChange = directory.claimant(of: peer.key).map {
                KeyChangeInfo(peer: $0.candidate, previous: peer.candidate)
            }
            await connections.wantSession(with: peer.key)
        }
        guard let waitTarget, let subscription else {
            // The answer is about storing them: `queued`, even if the pump has just written
            // some to the session (`history` shows them `sent`). Not asking the link saves
            // a hop to its actor, which is busy with the pump and the peer's ACKs.
            var result =
                idsOnly
                ? SendResult(ids: stored.map(\.id.description))
                : SendResult(
                    messages: stored.map {
                        MessageMapping.info($0, live: .none, peerID: peer.key.id)
                    })
            result.keyChange = keyChange
            return result
        }
        var result = try await waitFor(
            stored, peer: peer, target: waitTarget,
            seconds: waitSeconds ?? ParamsLimits.defaultTimeoutSeconds, subscription: subscription,
            keyChange: keyChange)
        if idsOnly { result = SendResult(ids: result.ids) }
        result.keyChange = keyChange
        return result
    }

    private func waitFor(
        _ stored: [StoredMessage], peer: PeerEntry, target: StatusWaiter.Target, seconds: Double,
        subscription: AsyncStream<DaemonEvent>, keyChange: KeyChangeInfo?
    ) async throws(ControlError) -> SendResult {
        // `seconds` was validated (0 … 86 400) before the messages were stored.
        let ids = stored.map(\.id)
        let waiter = StatusWaiter(
            store: store, subscription: subscription, clock: services.clock)
        let outcome: StatusWaiter.Outcome
        do {
            outcome = try await waiter.wait(
                for: stored, until: target, timeout: .milliseconds(Int64(seconds * 1000)))
        } catch {
            throw .storeUnavailable("cannot read message status: \(error)")
        }
        if !outcome.failed.isEmpty || !outcome.pending.isEmpty {
            // Taken before the rows (see `liveState`).
            let live = await liveState(for: peer.key)
            let current: [StoredMessage]
            do {
                current = try await store.messages(ids: ids)
            } catch {
                throw .storeUnavailable("cannot read message status: \(error)")
            }
            if !outcome.failed.isEmpty {
                let reason =
                    current.first { outcome.failed.contains($0.id) }?.failReason ?? "failed"
                throw .failed(reason, messageIDs: ids.map(\.description))
            }
            if outcome.interrupted {
                throw .timedOut(
                    Self.stoppingText(
                        target, count: ids.count,
                        delivered: Self.allDelivered(current, live: live)),
                    messageIDs: ids.map(\.description))
            }
            throw .timedOut(
                Self.timeoutText(
                    current, live: live,
                    online: await registry.existingLink(for: peer.key)?.isOnline ?? false,
                    target: target, seconds: seconds, peer: peer.displayName,
                    keyChange: keyChange),
                messageIDs: ids.map(\.description))
        }
        // Every message reached the target: answer from what the wait saw, without another
        // store read (a delivery's local bookkeeping may still be on its way to disk).
        let peerID = peer.key.id
        let reached = stored.map { message -> MessageInfo in
            var info = MessageMapping.info(message, live: .none, peerID: peerID)
            let time = outcome.reachedAt[message.id].map(Timestamp.init(millisecondsSince1970:))
            info.status = target == .read ? .read : .delivered
            info.deliveredAt = info.deliveredAt ?? time
            if target == .read { info.readAt = info.readAt ?? time }
            return info
        }
        return SendResult(messages: reached)
    }

    /// What a wait that ran out says: where the messages are now. Delivered ones wait only
    /// for the peer to read them (and to send read receipts); sent ones for the peer's
    /// acknowledgement; queued ones for the peer to be back, or for their turn while it is
    /// online (QA: "when bob is back" was said of messages in flight to an online peer);
    /// held ones for a key another key has taken the name of, which may never be back.
    static func timeoutText(
        _ messages: [StoredMessage], live: LiveOutgoingState, online: Bool,
        target: StatusWaiter.Target, seconds: Double, peer: String,
        keyChange: KeyChangeInfo? = nil
    ) -> String {
        let within = "within \(format(seconds)) s"
        let statuses = messages.map { MessageMapping.info($0, live: live).status }
        if target == .read && statuses.allSatisfy({ $0 == .delivered || $0 == .read }) {
            return "delivered but not read \(within); \(peer) has them, and a read receipt "
                + "comes when they are read (if \(peer) sends read receipts)"
        }
        let notYet = "not \(target == .read ? "read" : "delivered") \(within); "
        if !online, let keyChange { return notYet + keyChange.heldText }
        if !online {
            return notYet + "still queued and will be delivered when \(peer) is back"
        }
        if statuses.contains(.sent) {
            return notYet + "sent, not yet acknowledged by \(peer) (online); lanchatd keeps "
                + "them until they are, and sends them again on the next session if need be"
        }
        return notYet + "still queued, with \(peer) online; they go out in their turn"
    }

    /// What a wait cut short by the daemon's stop says: the messages are kept, and a client
    /// must not send them again.
    /// Whether the peer has every one of `messages` (stored or only acknowledged so far).
    static func allDelivered(_ messages: [StoredMessage], live: LiveOutgoingState) -> Bool {
        messages.allSatisfy {
            let status = MessageMapping.info($0, live: live).status
            return status == .delivered || status == .read
        }
    }

    /// `delivered`: every message reached the peer already (found by QA: a `--wait-read`
    /// cut short said they "go out" again when lanchatd runs, of delivered messages).
    static func stoppingText(_ target: StatusWaiter.Target, count: Int, delivered: Bool = false)
        -> String
    {
        if target == .read && delivered {
            return count == 1
                ? "lanchatd is stopping before the message was read; it was delivered, and its "
                    + "read receipt still comes when it is read (do not send it again)"
                : "lanchatd is stopping before the \(count) messages were read; they were "
                    + "delivered, and their read receipts still come when they are read (do not "
                    + "send them again)"
        }
        let reached = target == .read ? "read" : "delivered"
        return count == 1
            ? "lanchatd is stopping before the message was \(reached); it is stored and goes out "
                + "when lanchatd runs again (do not send it again)"
            : "lanchatd is stopping before the \(count) messages were \(reached); they are stored "
                + "and go out when lanchatd runs again (do not send them again)"
    }

    /// The params' own checks (`SendParams.validatedTexts`, shared with the fuzz target).
    static func validatedTexts(_ params: SendParams) throws(ControlError) -> [String] {
        try params.validatedTexts()
    }

    /// A wait's seconds as the user wrote them: `30`, `0.5`, `0.00001` (found by QA:
    /// `1e-05 s`); to the nanosecond, the most a timer takes.
    static func format(_ seconds: Double) -> String {
        if seconds == seconds.rounded() { return String(Int(seconds)) }
        var text = String(format: "%.9f", seconds)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// What the link with `peer` knows that the store may not show yet. Take it *before*
    /// reading the rows it is laid over: a delivery mark leaves the link only once it is in
    /// the store, so one of the two shows it. Taken after, a mark written in between was in
    /// neither, and an acknowledged message showed `queued`.
    func liveState(for peer: PeerKey) async -> LiveOutgoingState {
        await registry.existingLink(for: peer)?.liveOutgoingState() ?? .none
    }

    /// Control API views of stored messages, with `live` (taken before they were read) laid
    /// over them: `sent` for those in flight, `delivered` for those acknowledged but not yet
    /// recorded.
    func infos(_ messages: [StoredMessage], peer: PeerKey, live: LiveOutgoingState)
        -> [MessageInfo]
    {
        let peerID = peer.id
        return messages.map { MessageMapping.info($0, live: live, peerID: peerID) }
    }
}

/// Facts about this daemon process, for `status`.
struct RuntimeFacts: Sendable {
    let name: @Sendable () -> String
    let startedAt: Timestamp
    let startInstant: ContinuousClock.Instant
    /// The addresses that take connections now (`--interface` and its reload move them).
    let listening: @Sendable () -> [String]
    let dataDirectory: String
    let socketPath: String
    let mdnsEnabled: Bool
    /// Saves a new presence for the next start (the presence file); a failure refuses it.
    let keepPresence: @Sendable (OwnProfile.Snapshot) throws(PresenceFileError) -> Void
    /// Tells discovery to update the TXT record.
    let presenceChanged: @Sendable (OwnProfile.Snapshot) -> Void
    /// Why the last reload kept the running configuration (`ReloadOutcome`), or nil.
    var reloadError: @Sendable () -> String? = { nil }
}
