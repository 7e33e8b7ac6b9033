import LanChatControl
import LanChatCore
import LanChatStore

/// Reading: the inbox, marking read (which sends read receipts), archiving, search.
extension Messenger {
    func inbox(_ params: InboxParams) async throws(ControlError) -> InboxResult {
        try params.validate()
        let rows: [StoredConversation]
        let groupRows: [StoredGroupConversation]
        do {
            rows = try await store.conversations(archived: params.archived ?? false)
            groupRows = try await store.groupConversations(archived: params.archived ?? false)
        } catch {
            throw .storeUnavailable("cannot read the inbox: \(error)")
        }
        var conversations: [ConversationInfo] = []
        conversations.reserveCapacity(rows.count + groupRows.count)
        for row in rows {
            conversations.append(await conversationInfo(row))
        }
        if !groupRows.isEmpty {
            // Group conversations join the 1:1 ones by last activity (both lists are small).
            for row in groupRows {
                if let info = try await groupConversationInfo(row) { conversations.append(info) }
            }
            conversations = conversations.sorted(byKey: \.updatedAt, by: >)
        }
        if let query = params.query?.lowercased(), !query.isEmpty {
            conversations = conversations.filter { conversation in
                (conversation.peer?.name.lowercased().contains(query) ?? false)
                    || (conversation.peer?.alias?.lowercased().contains(query) ?? false)
                    || (conversation.group?.name.lowercased().contains(query) ?? false)
                    || (conversation.lastMessage?.text.lowercased().contains(query) ?? false)
            }
        }
        // Previews, cut after the query has seen the whole text: one conversation's 64 KiB
        // message each made an inbox of 260 conversations an answer over 16 MiB (QA).
        for index in conversations.indices {
            conversations[index].lastMessage = conversations[index].lastMessage?.preview()
        }
        return InboxResult(conversations: conversations)
    }

    /// The API shape of a stored conversation. An own last message that may be in flight
    /// gets the link's live state (`sent`, or `delivered` before the mark is stored).
    func conversationInfo(_ row: StoredConversation) async -> ConversationInfo {
        let peer = directory.entry(row.peer)?.info ?? Self.unknownPeer(row.peer)
        var live = LiveOutgoingState.none
        if let last = row.lastMessage, last.direction == .outgoing, last.status == .queued {
            live = await liveState(for: row.peer)
        }
        return ConversationInfo(
            peer: peer, unread: row.unread,
            lastMessage: row.lastMessage.map {
                MessageMapping.info($0, live: live, peerID: peer.id)
            },
            archived: row.archived,
            updatedAt: Timestamp(
                millisecondsSince1970: row.updatedAt ?? row.lastMessage?.createdAt ?? 0))
    }

    /// Prints-and-marks: the unread messages (one conversation or all) become read in one
    /// transaction, then each peer's link sends READ (or its next HELLO carries it).
    func read(_ params: ReadParams) async throws(ControlError) -> ReadResult {
        let span = try Self.readSpan(params)
        if let query = params.peer, let group = try await groupTarget(query) {
            return try await readGroup(group, span: span)
        }
        let entry = try params.peer.map { query throws(ControlError) in
            try conversationPeer(query)
        }
        let marking: ReadMarking
        do {
            marking = try await store.markRead(
                peer: entry?.key, span: span, at: services.now(),
                raisingReadCursors: services.readReceipts.enabled)
        } catch  where error.kind == .notFound {
            throw .badInput("\(error.description) with \(entry?.displayName ?? "anyone")")
        } catch {
            throw .storeUnavailable("cannot mark messages read: \(error)")
        }
        // What a request holds is not read: say so when nothing else was (the conversation
        // from before it, if any, is read as any other).
        if let entry, entry.record.hasPendingRequest, marking.messages.isEmpty {
            throw .failed(
                "\(entry.labelled) sent a message request; 'lanchat accept' it to read it")
        }
        for receipt in marking.receipts {
            await registry.link(for: receipt.peer).readLocally(
                stream: receipt.stream, upTo: receipt.readUpTo)
        }
        // Without a peer, group conversations' messages come too: with their group.
        return ReadResult(
            messages: await groupInfos(marking.messages, group: nil), more: marking.more)
    }

    /// `from` and `through`: message ids, of one conversation only.
    static func readSpan(_ params: ReadParams) throws(ControlError) -> ReadSpan {
        guard params.from != nil || params.through != nil else { return .all }
        guard params.peer != nil else {
            throw .invalidParams("\"from\" and \"through\" need a \"peer\" (a peer or group)")
        }
        return ReadSpan(
            from: try params.from.map { text throws(ControlError) in try messageID(text) },
            through: try params.through.map { text throws(ControlError) in try messageID(text) })
    }

    func archive(_ params: ArchiveParams, archived: Bool) async throws(ControlError)
        -> ArchiveResult
    {
        if let group = try await groupTarget(params.peer) {
            return try await archiveGroup(group, archived: archived)
        }
        let peer = try conversationPeer(params.peer)
        let change: ArchiveChange<StoredConversation>?
        do {
            change = try await store.setArchived(peer: peer.key, archived)
        } catch {
            throw .storeUnavailable("cannot change the conversation: \(error)")
        }
        guard let change else {
            throw .failed("there is no conversation with \(peer.labelled) yet")
        }
        return ArchiveResult(
            conversation: await conversationInfo(change.conversation), changed: change.changed)
    }

    func search(_ params: SearchParams) async throws(ControlError) -> SearchResult {
        let limit = try params.validatedLimit()
        let query: SearchQuery
        do {
            query = try SearchQuery(parsing: params.text)
        } catch {
            throw .badInput("cannot search for that: \(error)")
        }
        if let text = params.peer, let group = try await groupTarget(text) {
            return try await searchGroup(group, query: query, limit: limit)
        }
        let peer = try params.peer.map { text throws(ControlError) in
            try conversationPeer(text).key
        }
        let found: [StoredMessage]
        do {
            found = try await store.search(query, peer: peer, limit: limit)
        } catch {
            throw .storeUnavailable("cannot search: \(error)")
        }
        // Group messages come with their group, an own one once (not once per member).
        return SearchResult.fitted(
            Self.groupInfos(found, lives: [:], group: nil, ownID: directory.ownKey.id))
    }

    /// A peer the store knows but the directory does not (cannot happen after start, as the
    /// directory loads every pinned key): shown by its key.
    static func unknownPeer(_ key: PeerKey) -> PeerInfo {
        let tag = PeerDirectory.keyTag(key)
        return PeerInfo(id: key.id, keyTag: tag, name: "", presence: .offline)
    }
}
