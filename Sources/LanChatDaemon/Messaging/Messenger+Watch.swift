import LanChatControl
import LanChatCore
import LanChatStore

/// `watch`: replay from the durable event log after `since`, then live, with no gap and no
/// repeat. The stream reads the log itself from its own cursor, woken by the event feed when
/// the log grows, so order and completeness come from the log; a reader that falls behind
/// only lags (the daemon never waits for it), and if the log was pruned past it the stream
/// ends with `watchOverflow` carrying the last cursor it was sent.
extension Messenger {
    static let watchBatch = 512

    /// Checks a watch before it streams: the peer or group it follows and its `since` cursor.
    /// An error here refuses the request and leaves the connection to further requests
    /// (`ControlDispatcher.registerStreaming`); the stream itself starts from the log's newest
    /// event as read here, so nothing logged after this answer is missed.
    func openWatch(_ params: WatchParams) async throws(ControlError) -> OpenedStream<Methods.Watch>
    {
        // `watch GROUP` follows the group: its changes and its messages.
        var followed: GroupID?
        if let query = params.peer, let group = try await groupTarget(query) {
            followed = group.state.id
        }
        let peer =
            followed != nil
            ? nil
            : try params.peer.map { text throws(ControlError) in try conversationPeer(text).key }
        let bounds: (oldest: Int64?, newest: Int64)
        do {
            bounds = try await store.eventBounds()
        } catch {
            throw .storeUnavailable("cannot read the event log: \(error)")
        }
        let oldestKept = bounds.oldest ?? bounds.newest + 1
        // A `since` that is no cursor at all is refused as one the log does not have
        // (lanchat-api(7)): with the oldest kept, from which a client can start again.
        let since = try params.since.map { text throws(ControlError) in
            guard let cursor = Self.cursor(parsing: text) else {
                // Said as it is: "not of this log" would send the user looking for another.
                let what =
                    text.isEmpty
                    ? "an empty cursor is none (leave --since out to start from now)"
                    : "'\(text)' is not a cursor (a number of 16 digits, as watch gives them)"
                throw .cursorTooOld(
                    "\(what); the oldest kept is \(Self.cursorText(oldestKept))",
                    oldest: Self.cursorText(oldestKept))
            }
            return cursor
        }
        if let since {
            // The newest first: a cursor past it (up to Int64.max) is refused before any
            // arithmetic on it, and the oldest is compared without adding to `since`.
            guard since <= bounds.newest else {
                throw .cursorTooOld(
                    "\(Self.cursorText(since)) is not a cursor of this event log: the newest is "
                        + Self.cursorText(bounds.newest),
                    oldest: Self.cursorText(oldestKept))
            }
            guard since >= oldestKept - 1 else {
                throw .cursorTooOld(
                    "the events after \(Self.cursorText(since)) are no longer kept; the oldest kept is "
                        + Self.cursorText(oldestKept),
                    oldest: Self.cursorText(oldestKept))
            }
        }
        let start = since ?? bounds.newest
        return OpenedStream(
            result: WatchResult(
                cursor: Self.cursorText(bounds.newest), oldestCursor: Self.cursorText(oldestKept),
                followed: followed?.hex ?? peer?.id)
        ) { [followed] answer throws(ControlError) in
            try await self.streamEvents(after: start, followed: followed, peer: peer, to: answer)
        }
    }

    /// The stream of an opened watch: the logged events after `start`, then the live ones.
    /// The watcher is registered before the log is first read, so a commit after that read
    /// wakes it; one before is in that read.
    private func streamEvents(
        after start: Int64, followed: GroupID?, peer: PeerKey?,
        to answer: StreamingAnswer<Methods.Watch>
    ) async throws(ControlError) {
        let watcher = eventFeed.register()
        defer { eventFeed.unregister(watcher) }
        var last = start
        while !Task.isCancelled {
            let batch: [StoredEvent]
            do {
                batch = try await store.events(after: last, limit: Self.watchBatch)
            } catch {
                throw .storeUnavailable("cannot read the event log: \(error)")
            }
            if let first = batch.first, first.cursor > last + 1, last > 0 {
                // Pruned past this reader while it lagged: it cannot have everything.
                throw .watchOverflow(
                    "this watch fell more than the event log keeps behind; resume from "
                        + Self.cursorText(last),
                    lastCursor: Self.cursorText(last))
            }
            // One peer object per peer and batch: a replay names the same few peers over and
            // over, and building one (addresses and all) per event was most of its cost.
            var peers: [PeerKey: PeerInfo] = [:]
            let (groups, requests) = try await groupsNamed(in: batch)
            for event in batch {
                let wanted =
                    followed.map { event.group == $0 } ?? (peer == nil || event.peer == peer)
                // A pending group request's messages are held as a peer request's are: not
                // announced until it is accepted (its `group.changed` is the announcement).
                let held =
                    event.type == .messageReceived
                    && (event.message?.group ?? event.group).map(requests.contains) == true
                if wanted && !held {
                    var info = eventInfo(event, peers: &peers, groups: groups)
                    if event.type == .conversationRead {
                        info.conversation = await readConversation(event)
                    }
                    try await answer.notify(Methods.Watch.notification, info)
                }
                last = event.cursor
            }
            for live in watcher.takeLive()
            where followed == nil && (peer == nil || live.peer == peer) {
                try await answer.notify(
                    Methods.Watch.notification,
                    EventInfo(
                        cursor: Self.cursorText(last), type: live.type,
                        at: Timestamp(millisecondsSince1970: live.at),
                        peer: directory.entry(live.peer)?.info ?? Self.unknownPeer(live.peer),
                        typing: live.typing))
            }
            if batch.count < Self.watchBatch {
                await watcher.wakeup.wait(until: nil, clock: services.clock)
            }
        }
    }

    /// A `conversation.read` event's conversation, a peer's or a group's, as it is now (right
    /// after the read, for a live event); nil when it is gone or cannot be read.
    private func readConversation(_ event: StoredEvent) async -> ConversationInfo? {
        if let group = event.group {
            guard let row = try? await store.groupConversation(group) else { return nil }
            return try? await groupConversationInfo(row)
        }
        guard let peer = event.peer, let row = try? await store.conversation(with: peer) else {
            return nil
        }
        return await conversationInfo(row)
    }

    /// The groups a batch's events concern, read once per batch (most batches have none),
    /// and which of them are pending group requests. The store invalidates its groups cache
    /// at a group write's commit, before the event it logged wakes this stream.
    func groupsNamed(in batch: [StoredEvent]) async throws(ControlError)
        -> (infos: [GroupID: GroupInfo], requests: Set<GroupID>)
    {
        guard batch.contains(where: { Self.groupShown(by: $0) != nil }) else {
            return ([:], [])
        }
        do {
            let all = try await store.groups()
            return (
                // As `groups` shows it, a pending request marked (found by QA: a watch client
                // could not tell a request from a membership).
                Dictionary(
                    all.map { group in
                        var info = groupInfo(group.state)
                        if group.requestFrom != nil { info.request = true }
                        return (group.state.id, info)
                    }, uniquingKeysWith: { a, _ in a }),
                Set(all.filter { $0.requestFrom != nil }.map(\.state.id))
            )
        } catch {
            throw .storeUnavailable("cannot read groups: \(error)")
        }
    }

    /// `peers`: the peer objects already built for this batch, added to as needed; `groups`:
    /// the groups of the batch (`groupsNamed`).
    func eventInfo(
        _ event: StoredEvent, peers: inout [PeerKey: PeerInfo],
        groups: [GroupID: GroupInfo] = [:]
    ) -> EventInfo {
        var info = EventInfo(
            cursor: Self.cursorText(event.cursor), type: event.type.apiType,
            at: Timestamp(millisecondsSince1970: event.at))
        if let key = event.peer {
            if let known = peers[key] {
                info.peer = known
            } else {
                // A group change of our own is logged with our key.
                let built =
                    key == directory.ownKey
                    ? ownInfo : directory.entry(key)?.info ?? Self.unknownPeer(key)
                peers[key] = built
                info.peer = built
            }
            // A presence event replays the presence (and availability) it logged, not the
            // peer's current one. Gone offline, it was last seen then; the peer object,
            // built while the peer was still counted online, had no `lastSeen` (QA).
            let at = Timestamp(millisecondsSince1970: event.at)
            switch event.presence {
            case .offline:
                info.peer?.presence = .offline
                info.peer?.lastSeen = at
            case .discovering:
                info.peer?.presence = .discovering
                let seen = info.peer?.lastSeen
                info.peer?.lastSeen = seen ?? at
            case .online(let availability):
                info.peer?.presence = .online
                info.peer?.lastSeen = nil
                if let status = availability.flatMap(Availability.init(rawValue:)) {
                    info.peer?.status = status
                }
            case nil: break
            }
        }
        if let message = event.message {
            var row = message
            // The status this event reports, not whatever the message reached since.
            if let status = event.status, message.direction == .outgoing { row.status = status }
            // A group message is shaped by the rule `history` follows (`groupInfos`): an own
            // one with the member's copy this event is about as its one recipient (QA:
            // `peer` was the member and `recipients` null).
            info.message =
                message.group == nil
                ? MessageMapping.info(row, live: .none, peerID: info.peer?.id)
                : Self.groupInfos([row], lives: [:], group: nil, ownID: ownInfo.id).first
        }
        if let group = Self.groupShown(by: event) { info.group = groups[group] }
        return info
    }

    /// The group whose object an event carries: a `group.changed`'s, a group conversation's
    /// `conversation.read`'s and a received group message's. A `message.status` of an own
    /// group message names its group by the message's `group` id only: it is one member's
    /// copy, so a message to a group of 256 repeated the 60 KB group object in each of its
    /// 510 delivered and read events (found by QA: 6 GB of `watch --json` for 1 000 lines).
    static func groupShown(by event: StoredEvent) -> GroupID? {
        if event.type == .messageStatus { return nil }
        return event.group ?? event.message?.group
    }

    /// A cursor as the API shows it: zero-padded to 16 digits, so that a later cursor is also
    /// the larger string (PRODUCT.md §4: "opaque strings that increase"); 10^16 events is
    /// beyond any daemon's life. Read back with `cursor(parsing:)`, which also takes the bare
    /// numbers of daemons before it.
    static func cursorText(_ value: Int64) -> String {
        let digits = String(value)
        guard digits.count < 16 else { return digits }
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Digits only, as `cursorText` writes them (found by QA: "+1" and a 30-digit number were
    /// taken as cursors).
    static func cursor(parsing text: String) -> Int64? {
        guard (1...19).contains(text.utf8.count),
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = Int64(text)
        else { return nil }
        return value
    }
}
