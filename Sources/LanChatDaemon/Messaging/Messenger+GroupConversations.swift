import LanChatControl
import LanChatCore
import LanChatStore

/// Group conversations in the inbox and `archive GROUP` (PRODUCT.md §4: a conversation with
/// `peer: null` and its `group`).
extension Messenger {
    /// The API shape of a stored group conversation; nil when the group itself is gone.
    func groupConversationInfo(_ row: StoredGroupConversation) async throws(ControlError)
        -> ConversationInfo?
    {
        let group: StoredGroup?
        do {
            group = try await store.group(row.group)
        } catch {
            throw .storeUnavailable("cannot read a group: \(error)")
        }
        guard let group else { return nil }
        let last = await groupInfos(row.lastMessage, group: row.group).last
        return ConversationInfo(
            peer: nil, group: groupInfo(group.state), unread: row.unread, lastMessage: last,
            archived: row.archived,
            updatedAt: Timestamp(
                millisecondsSince1970: row.updatedAt ?? row.lastMessage.first?.createdAt ?? 0))
    }

    func archiveGroup(_ group: StoredGroup, archived: Bool) async throws(ControlError)
        -> ArchiveResult
    {
        let change: ArchiveChange<StoredGroupConversation>?
        do {
            change = try await store.setGroupArchived(group.state.id, archived)
        } catch {
            throw .storeUnavailable("cannot change the conversation: \(error)")
        }
        guard let change, let info = try await groupConversationInfo(change.conversation) else {
            throw .failed("there is no conversation in \(group.state.name) yet")
        }
        return ArchiveResult(conversation: info, changed: change.changed)
    }

    /// `search --peer GROUP`: the group's messages only, an own one once (its copies folded
    /// with their recipients), newest first.
    func searchGroup(_ group: StoredGroup, query: SearchQuery, limit: Int)
        async throws(ControlError) -> SearchResult
    {
        let found: [StoredMessage]
        do {
            // An own message has a row per member: read enough rows for `limit` messages.
            found = try await store.search(
                query, group: group.state.id,
                limit: limit * max(1, group.state.members.count - 1))
        } catch {
            throw .storeUnavailable("cannot search: \(error)")
        }
        let folded = await groupInfos(found.reversed(), group: group.state.id)
        return SearchResult.fitted(Array(folded.reversed().prefix(limit)))
    }

    /// `accept GROUP` (`--accept contacts`): the group request ends and its conversation
    /// joins the inbox. Answers with the member who added us and the group.
    func acceptGroup(_ group: StoredGroup) async throws(ControlError) -> PeerResult {
        guard let from = group.requestFrom else {
            throw .failed("\(group.state.name) is not a group request")
        }
        guard group.state.hasMember(directory.ownKey) else {
            throw .failed("you are not a member of \(group.state.name) any more: nothing to accept")
        }
        do {
            _ = try await store.acceptGroupRequest(group.state.id)
        } catch {
            throw .storeUnavailable("cannot accept the group: \(error)")
        }
        var result = PeerResult(peer: directory.entry(from)?.info ?? Self.unknownPeer(from))
        result.group = groupInfo(group.state)
        return result
    }
}
