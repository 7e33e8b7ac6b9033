import Foundation
import LanChatControl
import LanChatCore
import LanChatStore

/// Contacts, trust and message requests (PRODUCT.md §4, §6): every change writes the store
/// first, then the entry, like the rest of `PeerDirectory`. Checks that need the other peers
/// (an alias colliding with another peer's name) run here, before anything is written.
extension PeerDirectory {
    /// Sets or clears the alias of `key`. An alias equal (case-insensitively) to another
    /// peer's alias or name, or shaped like an id or a key tag, would make PEER arguments
    /// ambiguous: refused with `badInput`, nothing changed.
    func setAlias(_ key: PeerKey, to alias: String?) async throws(DirectoryError) -> PeerEntry {
        if let alias { try checkAlias(alias, for: key) }
        return try await change(key) { persistence, key throws(StoreError) in
            try await persistence.setAlias(key, alias)
        } memory: {
            $0.record.alias = alias
        }
    }

    /// `add NAME ID`: pins `key` ahead of its first contact if it is new (no TOFU window),
    /// names it `alias` and makes it a contact, in one write. Messages to it queue until it
    /// appears. The entry changes first, and back if the write fails: the write logs
    /// `peer.new` for a new key, and the watch stream it wakes builds the event's peer from
    /// this entry (found by QA: a live `peer.new` had no alias and was no contact).
    func addContact(_ key: PeerKey, alias: String, at now: Int64) async throws(DirectoryError)
        -> PeerEntry
    {
        guard key != ownKey else { throw .refused(.badInput("that is this daemon's own id")) }
        try checkAlias(alias, for: key)
        let (before, added) = modifyOrMake(key, at: now) { entry in
            entry.record.alias = alias
            entry.record.contact = true
            entry.record.requestSince = nil
            entry.pinned = true
        }
        do {
            try await persistence.addContact(key, keyTag: Self.keyTag(key), alias: alias, at: now)
        } catch {
            if let before {
                modify(key) { entry in
                    entry.record.alias = before.record.alias
                    entry.record.contact = before.record.contact
                    entry.record.requestSince = before.record.requestSince
                    entry.pinned = before.pinned
                }
            } else {
                dropUnused(key)
            }
            throw .store(error)
        }
        return entry(key) ?? added
    }

    /// A peer we added, accepted or wrote to first is a contact; a pending request from it is
    /// accepted with it. Nothing is written when it is a contact already.
    @discardableResult
    func makeContact(_ key: PeerKey) async throws(DirectoryError) -> PeerEntry {
        if let entry = entry(key), entry.record.contact, !entry.record.hasPendingRequest {
            return entry
        }
        return try await change(key) { persistence, key throws(StoreError) in
            try await persistence.makeContact(key)
        } memory: { entry in
            entry.record.contact = true
            entry.record.requestSince = nil
        }
    }

    func markVerified(_ key: PeerKey) async throws(DirectoryError) -> PeerEntry {
        try await change(key) { persistence, key throws(StoreError) in
            try await persistence.markVerified(key)
        } memory: { entry in
            entry.record.trust = .verified
            entry.record.settleKeyChange()
        }
    }

    func block(_ key: PeerKey) async throws(DirectoryError) -> PeerEntry {
        try await change(key) { persistence, key throws(StoreError) in
            try await persistence.block(key)
        } memory: { entry in
            entry.record.trust = .blocked
            entry.record.requestSince = nil
            entry.record.settleKeyChange()
        }
    }

    func unblock(_ key: PeerKey) async throws(DirectoryError) -> PeerEntry {
        guard entry(key)?.record.trust == .blocked else {
            throw .refused(.failed("\(describe(key)) is not blocked"))
        }
        return try await change(key) { persistence, key throws(StoreError) in
            try await persistence.unblock(key)
        } memory: {
            $0.record.trust = .unverified
        }
    }

    func forget(_ key: PeerKey, purge: Bool) async throws(DirectoryError)
        -> (entry: PeerEntry, kept: Int)
    {
        var kept = 0
        let entry = try await change(key) { persistence, key throws(StoreError) in
            kept = try await persistence.forget(key, purge: purge)
        } memory: { entry in
            entry.record.dropStanding()
            entry.record.settleKeyChange()
        }
        return (entry, kept)
    }

    /// Messages from `key` are arriving: under `--accept contacts`, a non-contact's open a
    /// message request (logged as `request.new`). Returns whether they are a request, so the
    /// caller keeps them out of notifications.
    func admitMessages(from key: PeerKey, at now: Int64) async throws(StoreError) -> Bool {
        guard let entry = entry(key) else { return false }
        if entry.record.hasPendingRequest { return true }
        guard acceptPolicy.withLock({ $0 }) == .contacts, !entry.record.contact else {
            return false
        }
        guard try await persistence.openRequest(key, at: now) else { return false }
        modify(key) { $0.record.requestSince = now }
        return true
    }

    /// PROTOCOL.md §3.8 row 7: `key` now calls itself `name`, which an earlier pinned key
    /// uses. The two stay separate peers; the new one is marked (a warning in `who` and
    /// `status`) and `peer.keyMismatch` is logged, once. Returns the earlier peer when it
    /// recorded the change.
    func noteNameClash(_ key: PeerKey, name: String, at now: Int64) async throws(StoreError)
        -> PeerEntry?
    {
        guard !name.isEmpty, let entry = entry(key), entry.record.keyChangedFrom == nil,
            entry.record.trust != .verified, !hasTakenOver(key)
        else { return nil }
        let folded = Self.comparableName(name)
        // The earlier key the user knows by that name, by its display name or the alias it
        // was added with; of several, the one that matters most: a verified one, else a
        // contact, else the latest seen (not the oldest, perhaps long removed).
        let earlier = all.filter {
            // A key replaced by a newer one (`linkKey`) is retired: its name moved on.
            $0.pinned && $0.key != key && $0.record.replacedBy == nil
                && $0.record.firstSeen <= entry.record.firstSeen
                && (Self.comparableName($0.record.name) == folded
                    || $0.record.alias.map(Self.comparableName) == folded)
        }.max { Self.clashRank($0) < Self.clashRank($1) }
        guard let earlier else { return nil }
        guard try await persistence.recordKeyChange(key, from: earlier.key, at: now) else {
            return nil
        }
        modify(key) { $0.record.keyChangedFrom = earlier.key }
        return earlier
    }

    /// A pinned peer was dialled at an address where `key` answered instead (PROTOCOL.md
    /// §3.8 row 4): the session is refused and the pin kept, and `key` is recorded as a peer
    /// of its own whose key-change warning names `expected`, as if it had dialled us under
    /// that peer's name (row 7). The user can then compare its safety number and take it for
    /// the earlier key (`verify --link`); before, a reinstalled peer that only we dial could
    /// never be (found by QA: its key tag matched no peer). Nothing for a key known already,
    /// nor for a retired `expected`. Returns whether `key` was recorded.
    func notePresentedKey(
        _ key: PeerKey, insteadOf expected: PeerKey, at address: Endpoint?, at now: Int64
    ) async throws(StoreError) -> Bool {
        guard key != expected, !isPinned(key), let earlier = entry(expected),
            earlier.record.replacedBy == nil
        else { return false }
        return try await pinOnFirstContact(
            key, dialledAddress: address, insteadOf: expected, at: now)
    }

    /// The key to dial for `key`: the one that took it over (`linkKey`), if any, followed to
    /// the last; `key` itself otherwise. A static peer named by its earlier key reaches the
    /// new one.
    func currentKey(for key: PeerKey) -> PeerKey {
        var current = key
        // A chain ends: each link retires a key for good; the bound only guards the loop.
        for _ in 0..<16 {
            guard let next = entry(current)?.record.replacedBy else { break }
            current = next
        }
        return current
    }

    /// A name as a person reads it, for `noteNameClash`: case, compatibility forms (ｆｕｌｌ
    /// ｗｉｄｔｈ), invisible characters and white space at the ends or doubled do not make
    /// another name (found by QA: "alice " beside "alice" was no key change; lookalikes in
    /// other scripts are beyond this).
    static func comparableName(_ name: String) -> String {
        let visible = name.precomposedStringWithCompatibilityMapping.lowercased()
            .unicodeScalars.filter { $0.properties.generalCategory != .format }
        return String(String.UnicodeScalarView(visible))
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// How much an earlier key with a new key's name matters to the user (`noteNameClash`).
    private static func clashRank(_ entry: PeerEntry) -> (Int, Int, Int64) {
        (
            entry.record.trust == .verified ? 1 : 0, entry.record.contact ? 1 : 0,
            entry.record.firstSeen
        )
    }

    /// The earlier key `entry` may take over (`linkKey`): the one its key-change warning
    /// names, pending or settled by a verify, block or remove, unless it was replaced already.
    func linkable(_ entry: PeerEntry) -> PeerEntry? {
        namedByWarning(entry).flatMap { $0.record.replacedBy == nil ? $0 : nil }
    }

    /// The earlier key `entry`'s key-change warning names, pending or settled.
    private func namedByWarning(_ entry: PeerEntry) -> PeerEntry? {
        (entry.record.keyChangedFrom ?? entry.record.keyChangeSettled).flatMap(self.entry)
    }

    /// "Verify and link" (PROTOCOL.md §3.8 rows 7 and 8): `key` is the new key of the peer its
    /// key-change warning names (`linkable`), which hands it its conversation, alias and
    /// contact status (`MessageStore.linkKey`); `key` is verified when `verified` or when it
    /// already was. Refused, with nothing changed, when `key` has no such earlier key, or when
    /// the earlier key is online: then it is still in use, and this is not the same person's
    /// reinstalled machine.
    func linkKey(_ key: PeerKey, verified: Bool) async throws(DirectoryError)
        -> (entry: PeerEntry, earlier: PeerEntry, linked: LinkedConversation)
    {
        guard let entry = entry(key), entry.pinned else {
            throw .refused(.peerNotFound(key.id))
        }
        let named = namedByWarning(entry)
        guard let earlier = named, earlier.record.replacedBy == nil else {
            if let named, let replacement = named.record.replacedBy {
                if replacement == key {
                    throw .refused(
                        .failed("\(entry.labelled) took over \(named.labelled) already"))
                }
                throw .refused(
                    .failed(
                        "\(named.labelled), whose name \(entry.labelled) took, was taken over by "
                            + "\(describe(replacement)) already: nothing to link"))
            }
            throw .refused(
                .failed(
                    "\(entry.labelled) took no earlier key's name (no key-change warning): "
                        + "nothing to link"))
        }
        let earlierKey = earlier.key
        // A block is lifted by `unblock` alone (found by QA: a link made a blocked key a
        // trusted one, or gave a blocked key's conversation to one that is not).
        for blocked in [entry, earlier] where blocked.record.trust == .blocked {
            throw .refused(
                .failed(
                    "\(blocked.labelled) is blocked: unblock it first (lanchat unblock "
                        + "\(blocked.record.keyTag)) if the two keys are the same person; "
                        + "nothing changed"))
        }
        let alias = linkedAlias(entry, replacing: earlier)
        guard earlier.presence != .online else {
            throw .refused(
                .failed(
                    "\(earlier.labelled) is online: that key is still in use, so "
                        + "\(entry.labelled) is not its replacement; nothing changed"))
        }
        let linked: LinkedConversation
        do {
            linked = try await persistence.linkKey(
                key, replacing: earlierKey, verified: verified, alias: alias,
                newStreamID: randomStreamID)
        } catch {
            throw .store(error)
        }
        // Its identity alert was about the key now linked to it (found by QA: the WARNING
        // stayed on after the link, about the key just trusted).
        let previous = modify(earlierKey) {
            $0.record.retire(replacedBy: key)
            $0.identityAlert = nil
        }
        let updated = modify(key) {
            $0.record.takeOver(earlier.record, alias: alias, verified: verified)
        }
        guard let previous, let updated else { throw .refused(.peerNotFound(key.id)) }
        return (updated, previous, linked)
    }

    /// Whether `key` took an earlier key over (`linkKey`): it holds that key's name by the
    /// user's choice, so another key using the name is no key change of it, and a second
    /// link does not take its alias away.
    func hasTakenOver(_ key: PeerKey) -> Bool {
        all.contains { $0.record.replacedBy == key }
    }

    /// The alias a linked key gets: the earlier key's, else its own, else the earlier key's
    /// name (so that the name the user knew resolves to it alone); its own first when it
    /// took a key over before. Never one another peer uses as its alias: then it keeps its
    /// own.
    private func linkedAlias(_ entry: PeerEntry, replacing earlier: PeerEntry) -> String? {
        let candidates =
            hasTakenOver(entry.key)
            ? [entry.record.alias, earlier.record.alias, earlier.record.name]
            : [earlier.record.alias, entry.record.alias, earlier.record.name]
        let chosen = candidates.compactMap { $0 }.first { !$0.isEmpty }
        guard let chosen else { return entry.record.alias }
        let taken = all.contains { other in
            other.key != entry.key && other.key != earlier.key
                && other.record.alias?.lowercased() == chosen.lowercased()
        }
        return taken ? entry.record.alias : chosen
    }

    /// Peers whose key appeared under an earlier peer's name and is not settled yet.
    var keyChanges: [(new: PeerEntry, earlier: PeerEntry?)] {
        all.filter { $0.record.keyChangedFrom != nil }
            .sorted(by: PeerResolver.byName)
            .map { entry in (entry, entry.record.keyChangedFrom.flatMap { self.entry($0) }) }
    }

    /// The newest key whose pending key-change warning names `key`: while there is one,
    /// messages to `key` are held for it (PRODUCT.md §6), and a `send` says so.
    func claimant(of key: PeerKey) -> PeerEntry? {
        all.filter { $0.record.keyChangedFrom == key }
            .max { $0.record.firstSeen < $1.record.firstSeen }
    }

    var currentAcceptPolicy: AcceptPolicy { acceptPolicy.withLock { $0 } }

    func setAcceptPolicy(_ policy: AcceptPolicy) {
        acceptPolicy.withLock { $0 = policy }
    }

    // MARK: Helpers

    private func checkAlias(_ alias: String, for key: PeerKey) throws(DirectoryError) {
        let folded = alias.lowercased()
        if PeerResolver.looksLikePeerIdentifier(alias) {
            throw .refused(
                .badInput("'\(alias)' looks like a peer id or key tag; choose another alias"))
        }
        // A key a link retired keeps its old name but is never a send target again: the
        // name is free for the key that replaced it (found by QA: `alias NEW bob` refused).
        let clash = all.first { other in
            other.pinned && other.key != key && other.record.replacedBy == nil
                && (other.record.alias?.lowercased() == folded
                    || other.record.name.lowercased() == folded)
        }
        if let clash {
            throw .refused(
                .badInput(
                    "'\(alias)' is already used by \(clash.labelled); choose another alias"
                ))
        }
    }

    /// A peer as messages name it (`PeerEntry.labelled`), or its key tag when unknown.
    func describe(_ key: PeerKey) -> String {
        guard let entry = entry(key) else { return Self.keyTag(key) }
        return entry.labelled
    }

    /// Writes with `store`, then applies `memory` to the entry.
    private func change(
        _ key: PeerKey,
        store: (any PeerPersistence, PeerKey) async throws(StoreError) -> Void,
        memory: (inout PeerEntry) -> Void
    ) async throws(DirectoryError) -> PeerEntry {
        guard isPinned(key) else { throw .refused(.peerNotFound(key.id)) }
        do {
            try await store(persistence, key)
        } catch {
            throw .store(error)
        }
        guard let entry = modify(key, memory) else { throw .refused(.peerNotFound(key.id)) }
        return entry
    }
}

/// Why a directory change did not happen: refused (with the control error to answer), or the
/// store failed (nothing changed either way).
enum DirectoryError: Error {
    case refused(ControlError)
    case store(StoreError)

    var controlError: ControlError {
        switch self {
        case .refused(let error): error
        case .store(let error): .storeUnavailable("nothing changed: \(error)")
        }
    }
}
