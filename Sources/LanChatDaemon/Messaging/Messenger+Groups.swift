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
                throw .badInput(
                    "\(directory.describe(member)) is already a member of \(state.name)")
            }
            guard state.members.count + fresh.count <= ParamsLimits.maxGroupMembers else {
                throw .badInput("a group has at most \(ParamsLimits.maxGroupMembers) members")
            }
            return try Self.next(after: state, members: state.members + fresh)
        }
    }

    func groupRemove(_ params: GroupMembersParams) async throws(ControlError) -> GroupResult {
        try params.validate()
        return try await change(params.group) { state throws(ControlError) in
            let removed = try resolveMembers(params.peers, removing: true)
            if let other = removed.first(where: { !state.hasMember($0) }) {
                throw .badInput("\(directory.describe(other)) is not a member of \(state.name)")
            }
            return try Self.next(
                after: state, members: state.members.filter { !removed.contains($0) })
        }
    }

    func groupRename(_ params: GroupRenameParams) async throws(ControlError) -> GroupResult {
        try params.validate()
        if let renamed = try await groupTarget(params.group) {
            try await refuseTakenName(params.name, except: renamed.state.id)
        }
        return try await change(params.group) { state throws(ControlError) in
            // As adding a member twice: nothing to tell the members (found by QA: a new
            // version and a group.changed everywhere for no change).
            guard state.name != params.name else {
                throw .badInput("#\(state.name) has that name already")
            }
            return try Self.next(after: state, name: params.name)
        }
    }

    func groupLeave(_ params: GroupParams) async throws(ControlError) -> GroupResult {
        try params.validate()
        let own = directory.ownKey
        return try await change(params.group) { state throws(ControlError) in
            try Self.next(after: state, members: state.members.filter { $0 != own })
        }
    }

    /// A local change's state, or why there can be none.
    private static func next(
        after state: GroupUpdate, name: String? = nil, members: [PeerKey]? = nil
    ) throws(ControlError) -> GroupUpdate {
        guard let next = GroupConvergence.next(after: state, name: name, members: members) else {
            throw .badInput(
                "#\(state.name) can change no more: its version is at the top of its range")
        }
        return next
    }

    // MARK: GROUP arguments

    /// The group a PEER-or-GROUP argument names, or nil when it names a peer. `#NAME` and a
    /// 32-hex-digit id are groups; a name that matches both a peer and a group is ambiguous.
    func groupTarget(_ query: String) async throws(ControlError) -> StoredGroup? {
        // Empty, it would be a prefix of every name: a script's empty variable, not a choice.
        let bare = query.hasPrefix("#") ? String(query.dropFirst()) : query
        guard !bare.isBlankText else {
            throw .invalidParams("the peer or group is empty")
        }
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
            // Every peer it matches (found by QA: only the first was listed).
            let matchingPeers = peers.filter { entry in
                entry.pinned
                    && (matches(entry.record.name.lowercased())
                        || entry.record.alias.map { matches($0.lowercased()) } ?? false)
            }.sorted(by: PeerResolver.byName)
            switch (groups.first, matchingPeers.isEmpty) {
            case (nil, true): continue
            case (nil, false): return nil
            case (let group?, true) where groups.count == 1: return group
            default:
                let names =
                    groups.map { "group #\($0.state.name) (\($0.state.id))" }
                    + matchingPeers.map { "peer \($0.labelled)" }
                throw .groupAmbiguous(
                    query, names: names, hint: Self.disambiguation(groups),
                    candidates: matchingPeers.map(\.candidate))
            }
        }
        return nil
    }

    /// The peer a PEER-or-GROUP argument names, once `groupTarget` found it names no group:
    /// one that names nothing says it was looked for among both.
    func conversationPeer(_ query: String) throws(ControlError) -> PeerEntry {
        do {
            return try directory.resolve(query)
        } catch  where error.isPeerNotFound && !directory.namesOwnNode(query) {
            throw .peerOrGroupNotFound(query, candidates: error.data?.candidates ?? [])
        }
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

    /// A second group of ours with the same name (case-insensitive) could then only be
    /// told apart by its id: refused when we create or rename one. (A member elsewhere may
    /// still make one; `groupTarget` then asks for the id.) So is a name shaped like an
    /// identifier (found by QA: a group renamed to a peer's key tag, or to another group's
    /// id, was offered by completion, which then sent to that peer or group instead).
    private func refuseTakenName(_ name: String, except id: GroupID?) async throws(ControlError) {
        if PeerResolver.looksLikePeerIdentifier(name) || GroupID(hex: name) != nil {
            throw .badInput(
                "'\(name)' has the shape of a key tag or an id, which name a peer or a group "
                    + "by themselves; choose another name")
        }
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
        var info = GroupInfo(
            id: state.id.hex, name: state.name, members: members, version: state.version)
        if !state.hasMember(own) { info.left = true }
        return info
    }
}

extension PeerLink {
    /// The current session did not negotiate groups (offline: not known, so not refused).
    var knownToLackGroups: Bool {
        guard phase.session != nil else { return false }
        return !sessionSupportsGroups
    }
}
