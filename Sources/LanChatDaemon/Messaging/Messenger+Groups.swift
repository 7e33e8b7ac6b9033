import LanChatControl
import LanChatCore
import LanChatCrypto
import LanChatStore

/// The group methods (PRODUCT.md §4, issue 13) and GROUP arguments for `send` and `history`.
/// Every change is stored with the GROUP frame for each member in one transaction
/// (`GroupPublisher`), then pushed to the members online.
extension Messenger {
    func groups() async throws(ControlError) -> GroupsResult {
        do {
            return GroupsResult(
                groups: try await store.groups().map { group in
                    var info = groupInfo(group.state)
                    // One we left (or were removed from) is nothing to accept any more.
                    if group.requestFrom != nil, group.state.hasMember(directory.ownKey) {
                        info.request = true
                    }
                    return info
                })
        } catch {
            throw .storeUnavailable("cannot read groups: \(error)")
        }
    }

    func groupCreate(_ params: GroupCreateParams) async throws(ControlError) -> GroupResult {
        try params.validate()
        let members = try resolveMembers(params.peers, removing: false)
        try await refuseTakenName(params.name, except: nil)
        let state = GroupUpdate(
            id: GroupID.random(), version: 1, name: params.name,
            members: [directory.ownKey] + members)
        try await publish(state, replacing: nil)
        return GroupResult(group: groupInfo(state))
    }

    func groupAdd(_ params: GroupMembersParams) async throws(ControlError) -> GroupResult {
        try params.validate()
        return try await change(params.group) { state throws(ControlError) in
            let added = try resolveMembers(params.peers, removing: false)
            let fresh = added.filter { !state.hasMember($0) }
            if let member = added.first(where: state.hasMember) {
                throw .badInput("\(memberName(member)) is already a member of \(state.name)")
            }
            guard state.members.count + fresh.count <= ParamsLimits.maxGroupMembers else {
                throw .badInput("a group has at most \(ParamsLimits.maxGroupMembers) members")
            }
            return GroupConvergence.next(after: state, members: state.members + fresh)
        }
    }

    func groupRemove(_ params: GroupMembersParams) async throws(ControlError) -> GroupResult {
        try params.validate()
        return try await change(params.group) { state throws(ControlError) in
            let removed = try resolveMembers(params.peers, removing: true)
            if let other = removed.first(where: { !state.hasMember($0) }) {
                throw .badInput("\(memberName(other)) is not a member of \(state.name)")
            }
            return GroupConvergence.next(
                after: state, members: state.members.filter { !removed.contains($0) })
        }
    }

    func groupRename(_ params: GroupRenameParams) async throws(ControlError) -> GroupResult {
        try params.validate()
        if let renamed = try await groupTarget(params.group) {
            try await refuseTakenName(params.name, except: renamed.state.id)
        }
        return try await change(params.group) { state throws(ControlError) in
            GroupConvergence.next(after: state, name: params.name)
        }
    }

    func groupLeave(_ params: GroupParams) async throws(ControlError) -> GroupResult {
        try params.validate()
        let own = directory.ownKey
        return try await change(params.group) { state throws(ControlError) in
            GroupConvergence.next(after: state, members: state.members.filter { $0 != own })
        }
    }

    // MARK: Group messages

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

    /// The members whose copy fails at once, with the reason: blocked, or a live session that
    /// did not negotiate groups (asked of every member's link at once).
    private func refusedMembers(_ members: [PeerKey]) async -> [PeerKey: String] {
        await withTaskGroup(of: (PeerKey, String?).self) { group in
            for member in members {
                group.addTask {
                    if self.directory.isBlocked(member) {
                        return (member, "blocked; unblock to send")
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
            throw .invalidParams("\(error.description) with \(group.state.name)")
        } catch {
            throw .storeUnavailable("cannot read history: \(error)")
        }
        var result = HistoryResult(
            peer: ownInfo, messages: await groupInfos(page.messages, group: group.state.id),
            hasOlder: page.hasOlder)
        result.group = groupInfo(group.state)
        return result
    }

    /// `read GROUP`: the group's unread messages become read; each sender's link sends READ
    /// on its stream (or its next HELLO carries it).
    func readGroup(_ group: StoredGroup) async throws(ControlError) -> ReadResult {
        // As a 1:1 request: its sender learns nothing (no READ) until it is accepted.
        guard group.requestFrom == nil else {
            throw .failed(
                "#\(group.state.name) is a group request; 'lanchat accept #\(group.state.name)' it to read it"
            )
        }
        let marking: ReadMarking
        do {
            marking = try await store.markGroupRead(group.state.id, at: services.now())
        } catch {
            throw .storeUnavailable("cannot mark messages read: \(error)")
        }
        for receipt in marking.receipts {
            await registry.link(for: receipt.peer).readLocally(
                stream: receipt.stream, upTo: receipt.readUpTo)
        }
        return ReadResult(messages: await groupInfos(marking.messages, group: group.state.id))
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
            let recipient = RecipientInfo(
                peer: row.peer.id, status: info.status ?? .queued,
                deliveredAt: info.deliveredAt, readAt: info.readAt)
            if let index = ownIndex[row.id] {
                result[index].recipients?.append(recipient)
                result[index].status = Self.leastAdvanced(
                    result[index].status ?? .queued, recipient.status)
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
        return result
    }

    static func leastAdvanced(_ a: MessageStatus, _ b: MessageStatus) -> MessageStatus {
        let order: [MessageStatus] = [.failed, .queued, .sent, .delivered, .read]
        let rank = { (status: MessageStatus) in order.firstIndex(of: status) ?? 0 }
        return rank(a) <= rank(b) ? a : b
    }

    // MARK: GROUP arguments

    /// The group a PEER-or-GROUP argument names, or nil when it names a peer. `#NAME` and a
    /// 32-hex-digit id are groups; a name that matches both a peer and a group is ambiguous.
    func groupTarget(_ query: String) async throws(ControlError) -> StoredGroup? {
        let all: [StoredGroup]
        do {
            all = try await store.groups()
        } catch {
            throw .storeUnavailable("cannot read groups: \(error)")
        }
        if query.hasPrefix("#") {
            return try Self.pickGroup(String(query.dropFirst()), among: all, query: query)
        }
        if let id = GroupID(hex: query), let group = all.first(where: { $0.state.id == id }) {
            return group
        }
        // A bare name: the same steps as a PEER's (PeerResolver), groups beside peers. A
        // peer's id or key tag is an identifier, never shadowed by a group a member named so.
        let folded = query.lowercased()
        let peers = directory.all
        if peers.contains(where: { $0.key.id == query || $0.record.keyTag.lowercased() == folded })
        {
            return nil
        }
        for matches in [
            { (name: String) in name == folded }, { (name: String) in name.hasPrefix(folded) },
        ] {
            let groups = all.filter { matches($0.state.name.lowercased()) }
            let peer = peers.first { entry in
                matches(entry.record.name.lowercased())
                    || entry.record.alias.map { matches($0.lowercased()) } ?? false
            }
            switch (groups.first, peer) {
            case (nil, nil): continue
            case (nil, .some): return nil
            case (let group?, nil) where groups.count == 1: return group
            case (_, let peer):
                let names =
                    groups.map { "group #\($0.state.name) (\($0.state.id))" }
                    + (peer.map { ["peer \($0.displayName) (\($0.record.keyTag))"] } ?? [])
                throw .groupAmbiguous(query, names: names, hint: Self.disambiguation(groups))
            }
        }
        return nil
    }

    /// A group by name (case-insensitive), else by a unique name prefix.
    static func pickGroup(_ name: String, among all: [StoredGroup], query: String)
        throws(ControlError) -> StoredGroup
    {
        if let id = GroupID(hex: name), let group = all.first(where: { $0.state.id == id }) {
            return group
        }
        let lower = name.lowercased()
        var matches = all.filter { $0.state.name.lowercased() == lower }
        if matches.isEmpty { matches = all.filter { $0.state.name.lowercased().hasPrefix(lower) } }
        guard let first = matches.first else { throw .groupNotFound(query) }
        guard matches.count == 1 else {
            throw .groupAmbiguous(
                query, names: matches.map { "group #\($0.state.name) (\($0.state.id))" },
                hint: disambiguation(matches))
        }
        return first
    }

    /// How to name the one meant among `groups` (and perhaps a peer): two groups of one name
    /// differ only by id; a group beside a peer is `#NAME`, the peer its key tag.
    private static func disambiguation(_ groups: [StoredGroup]) -> String {
        let names = Set(groups.map { $0.state.name.lowercased() })
        if groups.count > 1 && names.count == 1 { return "give the group's id" }
        return "write #NAME (or the id) for a group, the key tag for a peer"
    }

    // MARK: Helpers

    /// The peers `queries` name, each once. Naming ourselves is refused with what to do
    /// instead (`removing`: leave the group; else nothing, we are in it).
    private func resolveMembers(_ queries: [String], removing: Bool) throws(ControlError)
        -> [PeerKey]
    {
        let selfNamed: ControlError =
            removing
            ? .badInput("to remove yourself, use 'lanchat group leave'")
            : .badInput("you are a member already")
        var keys: [PeerKey] = []
        for query in queries {
            let key: PeerKey
            do {
                key = try directory.resolve(query).key
            } catch {
                // The own node is no peer of the directory: naming it is not "not found".
                guard !namesSelf(query) else { throw selfNamed }
                throw error
            }
            guard key != directory.ownKey else { throw selfNamed }
            guard !keys.contains(key) else { throw .badInput("'\(query)' is given twice") }
            keys.append(key)
        }
        return keys
    }

    /// A member as errors name it: its display name and key tag.
    private func memberName(_ key: PeerKey) -> String {
        directory.entry(key).map { "\($0.displayName) (\($0.record.keyTag))" }
            ?? Fingerprint.keyTag(key)
    }

    /// A second group of ours with the same name (case-insensitive) could then only be
    /// told apart by its id: refused when we create or rename one. (A member elsewhere may
    /// still make one; `groupTarget` then asks for the id.)
    private func refuseTakenName(_ name: String, except id: GroupID?) async throws(ControlError) {
        let all: [StoredGroup]
        do {
            all = try await store.groups()
        } catch {
            throw .storeUnavailable("cannot read groups: \(error)")
        }
        let own = directory.ownKey
        if let taken = all.first(where: {
            $0.state.id != id && $0.state.hasMember(own)
                && $0.state.name.lowercased() == name.lowercased()
        }) {
            throw .badInput(
                "you are in a group named \(taken.state.name) already (\(taken.state.id)); "
                    + "choose another name")
        }
    }

    /// Whether a PEER argument names this node: its id, key tag or name.
    private func namesSelf(_ query: String) -> Bool {
        let text = query.trimmingCharacters(in: .whitespaces)
        let own = directory.ownKey
        return PeerKey(id: text) == own
            || text.lowercased() == Fingerprint.keyTag(own).lowercased()
            || text.lowercased() == services.profile.snapshot.name.lowercased()
    }

    /// Applies `edit` to the group's current state and publishes the result; retried when a
    /// member's change was stored meanwhile.
    private func change(
        _ query: String, _ edit: (GroupUpdate) throws(ControlError) -> GroupUpdate
    ) async throws(ControlError) -> GroupResult {
        for _ in 0..<3 {
            guard let group = try await groupTarget(query) else { throw .groupNotFound(query) }
            guard group.state.hasMember(directory.ownKey) else {
                throw .failed("you are not a member of \(group.state.name)")
            }
            let next = try edit(group.state)
            if try await publish(next, replacing: group) {
                return GroupResult(group: groupInfo(next))
            }
        }
        throw .unavailable("the group kept changing; try again")
    }

    @discardableResult
    private func publish(_ state: GroupUpdate, replacing previous: StoredGroup?)
        async throws(ControlError) -> Bool
    {
        do {
            switch try await GroupPublisher(services: services).publish(
                state, replacing: previous, by: directory.ownKey)
            {
            case .saved: return true
            case .conflict: return false
            }
        } catch {
            throw .storeUnavailable("group not stored: \(error)")
        }
    }

    /// This node as a member: online, with the availability and status text it announces.
    var ownInfo: PeerInfo {
        let own = directory.ownKey
        let profile = services.profile.snapshot
        return PeerInfo(
            id: own.id, keyTag: Fingerprint.keyTag(own), name: profile.name, presence: .online,
            status: Availability(rawValue: profile.status.availability) ?? .available,
            statusText: profile.statusText)
    }

    func groupInfo(_ state: GroupUpdate) -> GroupInfo {
        let own = directory.ownKey
        let members = state.members.sorted().map { key in
            key == own
                ? ownInfo
                : directory.entry(key)?.info
                    ?? PeerInfo(
                        id: key.id, keyTag: Fingerprint.keyTag(key), name: "", presence: .offline)
        }
        return GroupInfo(
            id: state.id.hex, name: state.name, members: members, version: state.version)
    }
}

extension PeerLink {
    /// The current session did not negotiate groups (offline: not known, so not refused).
    var knownToLackGroups: Bool {
        guard phase.session != nil else { return false }
        return !sessionSupportsGroups
    }
}
