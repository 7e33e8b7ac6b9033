import LanChatControl
import LanChatCore
import LanChatStore

/// Group messages (PRODUCT.md §4, issue 13): `send GROUP` with its waits, a group's history
/// and `read GROUP`, and each own message shown once with its members' copies folded in.
extension Messenger {
    /// `send GROUP`: one copy per current member on that member's stream. A member whose
    /// session says it does not support groups gets its copy failed, with the reason. With
    /// `wait`, answers once every member's copy is delivered (or read).
    func sendToGroup(
        _ group: StoredGroup, texts: [String],
        wait: (target: StatusWaiter.Target, seconds: Double)? = nil
    ) async throws(ControlError) -> SendResult {
        let own = directory.ownKey
        guard group.state.hasMember(own) else {
            throw .failed("you are not a member of \(group.state.name)")
        }
        let members = group.state.members.filter { $0 != own }
        guard !members.isEmpty else {
            throw .failed(
                "#\(group.state.name) has no other member: nothing would be sent; "
                    + "'lanchat group add' someone first")
        }
        // A member we never met, named by another member's change, is not pinned until we
        // send to it (`GroupPublisher`): its copy needs its key in the store, and the member
        // the group's frame before it, in case nobody told it of the group yet.
        let now = services.now()
        let unmet = members.filter { !directory.isPinned($0) }
        do {
            for member in unmet { try await directory.pinAhead(member, at: now) }
            if !unmet.isEmpty {
                let queued = try await store.queueGroupFrame(group.state, for: unmet)
                await services.groupFanout.framesQueued(for: queued, of: group.state.id)
            }
        } catch {
            throw .storeUnavailable("message not stored: \(error)")
        }
        let refused = await refusedMembers(members)
        // Before storing: from then on, every change to the copies is an event here.
        let subscription = wait.map { _ in
            services.events.subscribe(to: StatusWaiter.followedKinds)
        }
        let copies: [PeerKey: [StoredMessage]]
        do {
            copies = try await store.enqueueGroup(
                group.state.id, to: members, refused: refused, texts: texts, at: services.now())
        } catch {
            throw .storeUnavailable("message not stored: \(error)")
        }
        // Every member's link at once: each hop waits for a busy actor (its pump, its ACKs).
        await withDiscardingTaskGroup { group in
            for (member, stored) in copies where refused[member] == nil {
                group.addTask {
                    await self.registry.link(for: member).committed(stored)
                    if self.directory.entry(member)?.sessions ?? 0 == 0 {
                        await self.connections.wantSession(with: member)
                    }
                }
            }
        }
        let all = copies.values.flatMap { $0 }.sorted { $0.rowID < $1.rowID }
        guard let wait, let subscription else {
            return SendResult(messages: await groupInfos(all, group: group.state.id))
        }
        return try await waitForGroup(
            all, group: group.state, target: wait.target, seconds: wait.seconds,
            subscription: subscription)
    }

    /// The members whose copy fails at once, with the reason: blocked, replaced by a newer key
    /// (`verify --link` retired it: nothing is sent to it again), or a live session that did
    /// not negotiate groups (asked of every member's link at once).
    private func refusedMembers(_ members: [PeerKey]) async -> [PeerKey: String] {
        await withTaskGroup(of: (PeerKey, String?).self) { group in
            for member in members {
                group.addTask {
                    if self.directory.isBlocked(member) {
                        return (member, "blocked; unblock to send")
                    }
                    if self.directory.entry(member)?.record.replacedBy != nil {
                        return (member, LinkedConversation.replacedReason)
                    }
                    if let link = self.registry.existingLink(for: member),
                        await link.knownToLackGroups
                    {
                        return (member, "this peer's lanchat does not support groups")
                    }
                    return (member, nil)
                }
            }
            var refused: [PeerKey: String] = [:]
            for await (member, reason) in group {
                if let reason { refused[member] = reason }
            }
            return refused
        }
    }

    /// `send GROUP --wait|--wait-read`: every current member's copy must reach the target;
    /// a failed copy fails the wait with its reason, a member away times it out (its copy
    /// stays queued).
    private func waitForGroup(
        _ copies: [StoredMessage], group: GroupUpdate, target: StatusWaiter.Target,
        seconds: Double, subscription: AsyncStream<DaemonEvent>
    ) async throws(ControlError) -> SendResult {
        let outcome: StatusWaiter.Outcome
        do {
            outcome = try await StatusWaiter(
                store: store, subscription: subscription, clock: services.clock
            ).wait(for: copies, until: target, timeout: .milliseconds(Int64(seconds * 1000)))
        } catch {
            throw .storeUnavailable("cannot read message status: \(error)")
        }
        guard outcome.failed.isEmpty, outcome.pending.isEmpty else {
            throw try await waitFailure(
                copies, outcome, group: group, target: target, seconds: seconds)
        }
        // Every copy reached the target: answer from what the wait saw, without reading the
        // copies back or asking each member's link (the 1:1 `send --wait` does the same).
        let reached = copies.map { copy -> StoredMessage in
            var row = copy
            let time = outcome.reachedAt[row.id]
            row.status = target == .read ? .read : .delivered
            row.deliveredAt = row.deliveredAt ?? time
            if target == .read { row.readAt = row.readAt ?? time }
            return row
        }
        return SendResult(
            messages: Self.groupInfos(
                reached, lives: [:], group: group.id, ownID: directory.ownKey.id))
    }

    /// Why a group wait ended without every copy at its target, from the copies' rows.
    private func waitFailure(
        _ copies: [StoredMessage], _ outcome: StatusWaiter.Outcome, group: GroupUpdate,
        target: StatusWaiter.Target, seconds: Double
    ) async throws(ControlError) -> ControlError {
        let ids = Array(Set(copies.map(\.id))).sorted { $0.description < $1.description }
        let current: [StoredMessage]
        do {
            current = try await store.outgoing(copies.map { ($0.peer, $0.id) })
        } catch {
            throw .storeUnavailable("cannot read message status: \(error)")
        }
        if !outcome.failed.isEmpty {
            let failed = current.first { outcome.failed.contains($0.id) && $0.status == .failed }
            let who =
                failed.map { directory.entry($0.peer)?.displayName ?? $0.peer.id } ?? "a member"
            return .failed(
                "not delivered to \(who): \(failed?.failReason ?? "failed")",
                messageIDs: ids.map(\.description))
        }
        if outcome.interrupted {
            return .timedOut(
                Self.stoppingText(target, count: ids.count), messageIDs: ids.map(\.description))
        }
        // Where the copies stand, acknowledgements not yet written included.
        var queued = 0
        var unread = 0
        for copy in current {
            let live = await liveState(for: copy.peer)
            switch MessageMapping.info(copy, live: live).status {
            case .delivered: unread += 1
            case .read, .failed: break
            case .queued, .sent, nil: queued += 1
            }
        }
        var standing: [String] = []
        if target == .read && unread > 0 {
            standing.append("\(unread) of \(current.count) copies delivered but not read yet")
        }
        if queued > 0 {
            standing.append("\(queued) of \(current.count) copies still queued for members away")
        }
        let what = target == .read ? "read" : "delivered"
        return .timedOut(
            "not \(what) by every member of \(group.name) within \(Self.format(seconds)) s: "
                + standing.joined(separator: ", "),
            messageIDs: ids.map(\.description))
    }

    /// `history GROUP`: own messages once, with each member's copy as a recipient. Pages
    /// like a peer's (`before`/`after`), in whole messages: the store never cuts one's copies.
    func groupHistory(_ group: StoredGroup, params: HistoryParams) async throws(ControlError)
        -> HistoryResult
    {
        let limit = try params.validatedLimit()
        let anchor: MessageStore.PageAnchor
        switch (params.before, params.after) {
        case (let before?, _): anchor = .before(try Self.messageID(before))
        case (nil, let after?): anchor = .after(try Self.messageID(after))
        case (nil, nil): anchor = .latest
        }
        let page: MessageStore.HistoryPage
        do {
            page = try await store.groupHistory(group.state.id, limit: limit, anchor: anchor)
        } catch  where error.kind == .notFound {
            throw .badInput("\(error.description) with \(group.state.name)")
        } catch {
            throw .storeUnavailable("cannot read history: \(error)")
        }
        var result = HistoryResult(
            peer: ownInfo, messages: await groupInfos(page.messages, group: group.state.id),
            hasOlder: page.hasOlder, hasNewer: page.hasNewer)
        result.group = groupInfo(group.state)
        result.fitToBudget(anchor: anchor)
        return result
    }

    /// `read GROUP`: the group's unread messages become read; each sender's link sends READ
    /// on its stream (or its next HELLO carries it).
    func readGroup(_ group: StoredGroup, span: ReadSpan = .all) async throws(ControlError)
        -> ReadResult
    {
        // As a 1:1 request: its sender learns nothing (no READ) until it is accepted.
        guard group.requestFrom == nil else {
            throw .failed(
                "#\(group.state.name) is a group request; 'lanchat accept #\(group.state.name)' it to read it"
            )
        }
        let marking: ReadMarking
        do {
            marking = try await store.markGroupRead(
                group.state.id, span: span, at: services.now(),
                raisingReadCursors: services.readReceipts.enabled)
        } catch  where error.kind == .notFound {
            throw .badInput("\(error.description) (#\(group.state.name))")
        } catch {
            throw .storeUnavailable("cannot mark messages read: \(error)")
        }
        for receipt in marking.receipts {
            await registry.link(for: receipt.peer).readLocally(
                stream: receipt.stream, upTo: receipt.readUpTo)
        }
        return ReadResult(
            messages: await groupInfos(marking.messages, group: group.state.id),
            more: marking.more)
    }

    /// Folds member copies of own messages into one message with `recipients`; `status` is
    /// the least advanced of them. `group`: the group all `rows` belong to; nil when they
    /// come from any conversation (`read`, `search`), each row then with its own.
    func groupInfos(_ rows: [StoredMessage], group: GroupID?) async -> [MessageInfo] {
        var lives: [PeerKey: LiveOutgoingState] = [:]
        for peer in Set(rows.filter { $0.direction == .outgoing }.map(\.peer)) {
            lives[peer] = await liveState(for: peer)
        }
        return Self.groupInfos(rows, lives: lives, group: group, ownID: directory.ownKey.id)
    }

    /// `groupInfos` with the members' live states already known (none: the rows say all).
    /// A row of no group (neither `group` nor its own) is a direct message, mapped as it is.
    static func groupInfos(
        _ rows: [StoredMessage], lives: [PeerKey: LiveOutgoingState], group: GroupID?,
        ownID: String
    ) -> [MessageInfo] {
        var result: [MessageInfo] = []
        var ownIndex: [MessageID: Int] = [:]
        for row in rows {
            var info = MessageMapping.info(row, live: lives[row.peer] ?? .none)
            guard let group = group ?? row.group else {
                result.append(info)
                continue
            }
            info.group = group.hex
            guard row.direction == .outgoing else {
                info.sender = row.peer.id
                result.append(info)
                continue
            }
            let status = info.status ?? .queued
            let recipient = RecipientInfo(
                peer: row.peer.id, status: status, deliveredAt: info.deliveredAt,
                readAt: info.readAt, failReason: status == .failed ? info.failReason : nil)
            if let index = ownIndex[row.id] {
                result[index].recipients?.append(recipient)
                if recipient.status == .failed, result[index].failReason == nil {
                    result[index].failReason = info.failReason
                }
            } else {
                info.sender = ownID
                info.peer = ownID
                info.recipients = [recipient]
                ownIndex[row.id] = result.count
                result.append(info)
            }
        }
        // An own message's status is the least advanced copy's, and its times follow:
        // delivered (read) when the last member had it (read it), not when the first did.
        for index in ownIndex.values { result[index].settleFromRecipients() }
        return result
    }
}
