import LanChatControl
import LanChatCore
import LanChatCrypto
import LanChatStore

/// Contacts, trust and message requests (PRODUCT.md §4, §6). Every param is checked and the
/// peer resolved before anything is written; the change itself is `PeerDirectory`'s.
extension Messenger {
    func contacts() async throws(ControlError) -> ContactsResult {
        let stored: [StoredRequest]
        do {
            stored = try await store.requests()
        } catch {
            throw .storeUnavailable("cannot read message requests: \(error)")
        }
        let peers = directory.all.filter(\.pinned).sorted(by: PeerResolver.byName)
        let requests = stored.map { request in
            let peer = directory.entry(request.peer)?.info ?? Self.unknownPeer(request.peer)
            return ContactRequestInfo(
                peer: peer, count: request.count,
                // A preview, as the inbox's (found by QA: 44 requests of 64 KiB were an
                // answer over 16 MiB).
                firstMessage: request.firstMessage.map {
                    MessageMapping.info($0, live: .none, peerID: peer.id).preview()
                },
                receivedAt: Timestamp(millisecondsSince1970: request.since))
        }
        return ContactsResult(
            contacts: peers.filter { $0.record.contact && $0.record.trust != .blocked }.map(\.info),
            blocked: peers.filter { $0.record.trust == .blocked }.map(\.info),
            requests: requests)
    }

    func add(_ params: AddParams) async throws(ControlError) -> PeerResult {
        let (alias, id) = try params.validated()
        guard let key = PeerKey(id: id), !key.isLowOrder else {
            throw .badInput("'\(params.id)' is not a valid peer id (not a public key)")
        }
        try refuseOwnName(alias)
        if let blocked = directory.entry(key), blocked.record.trust == .blocked {
            // Added, it would still get nothing: say so instead of "messages wait".
            throw .failed(
                "\(blocked.labelled) is blocked; 'lanchat unblock' it first"
            )
        }
        if let known = directory.entry(key), known.record.contact,
            let current = known.record.alias, current != alias
        {
            // Found by QA: adding a contact again under another name renamed it silently.
            throw .failed(
                "\(known.labelled) is already a contact; to call it \(alias), "
                    + "'lanchat alias \(current) \(alias)'")
        }
        let entry = try await changing { () async throws(DirectoryError) -> PeerEntry in
            try await directory.addContact(key, alias: alias, at: services.now())
        }
        // Messages may already wait for it, and a record may already announce it.
        await connections.wantSession(with: key)
        return PeerResult(peer: entry.info)
    }

    func alias(_ params: AliasParams) async throws(ControlError) -> PeerResult {
        let alias = try params.validatedAlias()
        if let alias { try refuseOwnName(alias) }
        let peer = try directory.resolve(params.peer)
        let entry = try await changing { () async throws(DirectoryError) -> PeerEntry in
            try await directory.setAlias(peer.key, to: alias)
        }
        return PeerResult(peer: entry.info)
    }

    /// An alias equal to this node's own name would make PEER arguments that meant us (or
    /// another peer of that name) resolve to the aliased peer.
    private func refuseOwnName(_ alias: String) throws(ControlError) {
        guard alias.lowercased() == services.profile.snapshot.name.lowercased() else { return }
        throw .badInput("'\(alias)' is this node's own name; choose another alias")
    }

    func verify(_ params: VerifyParams) async throws(ControlError) -> VerifyResult {
        let given = try params.validatedNumber()
        let peer = try directory.resolve(params.peer)
        let number = Self.safetyDigits(own: directory.ownKey, peer: peer.key)
        if let given, given != number {
            // Said as it stands: a peer verified before stays so (found by QA: "is not
            // verified" of a verified peer).
            let standing =
                peer.record.trust == .verified
                ? "\(peer.labelled) stays verified by the earlier comparison"
                : "\(peer.labelled) is not verified"
            throw .failed(
                "the safety numbers differ: \(standing); nothing changed. Compare again, "
                    + "digit by digit, on a channel you trust")
        }
        if params.link == true {
            return try await linkKey(peer, safetyNumber: number, verified: given != nil)
        }
        if given != nil, peer.record.trust == .blocked {
            // A block is lifted by `unblock` alone (found by QA: verify made it verified, and
            // its sessions came back).
            throw .failed(
                "\(peer.labelled) is blocked: unblock it first (lanchat unblock "
                    + "\(peer.record.keyTag)), then verify; nothing changed")
        }
        guard given != nil else {
            return VerifyResult(
                peer: peer.info, safetyNumber: number, verified: false,
                canReplace: directory.linkable(peer)?.candidate)
        }
        let entry = try await changing { () async throws(DirectoryError) -> PeerEntry in
            try await directory.markVerified(peer.key)
        }
        // Verified without --link, a reinstalled contact's key can still take the earlier
        // key's conversation and held messages over: the answer says with what.
        return VerifyResult(
            peer: entry.info, safetyNumber: number, verified: true,
            canReplace: directory.linkable(entry)?.candidate)
    }

    /// `verify --link`: `peer` takes over the earlier key its key-change warning names
    /// (`PeerDirectory.linkKey`), and the messages held for that key go out to `peer`, after
    /// its own, in their order.
    private func linkKey(_ peer: PeerEntry, safetyNumber: String, verified: Bool)
        async throws(ControlError) -> VerifyResult
    {
        let outcome: (entry: PeerEntry, earlier: PeerEntry, linked: LinkedConversation)
        do {
            outcome = try await directory.linkKey(peer.key, verified: verified)
        } catch {
            throw error.controlError
        }
        let trust = verified ? "verified by safety number" : "trust unchanged"
        services.logger.notice(
            """
            \(outcome.entry.labelled) took over \(outcome.earlier.labelled): \
            \(outcome.linked.moved) messages moved, \(outcome.linked.queued.count) held ones \
            released, \(outcome.linked.failedGroupCopies) group copies for the earlier key \
            failed, \(trust)
            """)
        if !outcome.linked.queued.isEmpty {
            await registry.link(for: peer.key).committed(outcome.linked.queued)
            await connections.wantSession(with: peer.key)
        }
        return VerifyResult(
            peer: outcome.entry.info, safetyNumber: safetyNumber, verified: verified,
            linked: LinkedInfo(
                previous: outcome.earlier.candidate, messages: outcome.linked.moved,
                released: outcome.linked.queued.count,
                groups: await groupsWithMember(outcome.earlier.key)))
    }

    /// The groups `key` is a member of, by name (none when the groups cannot be read: the
    /// link is done, and this is only advice).
    private func groupsWithMember(_ key: PeerKey) async -> [GroupInfo] {
        let all = (try? await store.groups()) ?? []
        return all.filter { $0.state.hasMember(key) }.map { groupInfo($0.state) }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// Blocks the key: its live session is closed at once, it is never dialled again and its
    /// sessions are refused at the handshake (`IdentityPolicy`).
    func block(_ params: PeerParams) async throws(ControlError) -> PeerResult {
        let peer = try directory.resolve(params.peer)
        let entry = try await changing { () async throws(DirectoryError) -> PeerEntry in
            try await directory.block(peer.key)
        }
        await registry.closeSessions(with: peer.key)
        return PeerResult(peer: entry.info)
    }

    /// Unblocks the key; what is queued for it goes out once it is reached again.
    func unblock(_ params: PeerParams) async throws(ControlError) -> PeerResult {
        let peer = try directory.resolve(params.peer)
        let entry = try await changing { () async throws(DirectoryError) -> PeerEntry in
            try await directory.unblock(peer.key)
        }
        await connections.unblocked(peer.key)
        return PeerResult(peer: entry.info)
    }

    func remove(_ params: RemoveParams) async throws(ControlError) -> RemoveResult {
        let peer = try directory.resolve(params.peer)
        let purge = params.purge ?? false
        let removed = try await changing { () async throws(DirectoryError) in
            try await directory.forget(peer.key, purge: purge)
        }
        return RemoveResult(peer: removed.entry.info, kept: purge ? removed.kept : nil)
    }

    /// Accepts a message request: the peer becomes a contact and its messages join the inbox,
    /// unread. A peer with no pending request is refused (nothing to accept).
    func accept(_ params: PeerParams) async throws(ControlError) -> PeerResult {
        if let group = try await groupTarget(params.peer) {
            return try await acceptGroup(group)
        }
        let peer = try conversationPeer(params.peer)
        guard peer.record.hasPendingRequest else {
            throw .failed(
                "there is no message request from \(peer.labelled)")
        }
        let entry = try await changing { () async throws(DirectoryError) -> PeerEntry in
            try await directory.makeContact(peer.key)
        }
        return PeerResult(peer: entry.info)
    }

    /// Sending to a peer makes it a contact (PRODUCT.md §4: "wrote to first").
    func sendingMakesContact(_ peer: PeerEntry) async {
        guard !peer.record.contact || peer.record.hasPendingRequest else { return }
        do {
            _ = try await directory.makeContact(peer.key)
        } catch {
            services.logger.error(
                "cannot record \(peer.record.keyTag) as a contact after a send: \(error)")
        }
    }

    /// Pinned peers whose address answered with another key, by name.
    var identityAlertInfos: [IdentityAlertInfo] {
        // A key a newer one took over (`verify --link`) is not dialled for any more.
        directory.all.filter { $0.record.replacedBy == nil }.compactMap { entry in
            entry.identityAlert.map { alert in
                IdentityAlertInfo(
                    peer: entry.candidate,
                    address: alert.address?.description ?? "an unknown address",
                    presentedKeyTag: Fingerprint.keyTag(alert.presented),
                    at: Timestamp(millisecondsSince1970: alert.at))
            }
        }.sorted { ($0.peer.name, $0.peer.keyTag) < ($1.peer.name, $1.peer.keyTag) }
    }

    /// The key-change warnings `who` and `status` show.
    var keyChangeInfos: [KeyChangeInfo] {
        directory.keyChanges.map {
            KeyChangeInfo(peer: $0.new.candidate, previous: $0.earlier?.candidate)
        }
    }

    static func safetyDigits(own: PeerKey, peer: PeerKey) -> String {
        Fingerprint.safetyNumber(own, peer).filter { $0 != " " }
    }

    private func changing<Changed>(_ change: () async throws(DirectoryError) -> Changed)
        async throws(ControlError) -> Changed
    {
        do {
            return try await change()
        } catch {
            throw error.controlError
        }
    }
}
