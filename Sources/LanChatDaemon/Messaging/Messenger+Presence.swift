import LanChatControl
import LanChatCore
import LanChatStore

extension Messenger {
    /// Sets our presence and status text: sent as PRESENCE on every live session (§9.6) and
    /// announced in the mDNS TXT record.
    func setPresence(_ params: PresenceParams) async throws(ControlError) -> StatusResult {
        try params.validate()
        let status: AnnouncedStatus =
            switch params.status {
            case .available: .available
            case .away: .away
            case .busy: .busy
            }
        let profile: OwnProfile.Snapshot
        do {
            profile = try services.profile.update(
                status: status, statusText: params.text, keep: runtime.keepPresence)
        } catch {
            throw .storeUnavailable("\(error); the presence is unchanged")
        }
        await registry.announcePresence(profile)
        runtime.presenceChanged(profile)
        return try await self.status()
    }

    /// Puts failed messages back in the queue: one message by id, a peer's, or all.
    func retry(_ params: RetryParams) async throws(ControlError) -> RetryResult {
        var id: MessageID?
        var peer: PeerKey?
        if let target = params.target {
            // An empty variable in a script must not retry everything, which an absent
            // target does.
            guard !target.isBlankText else {
                throw .invalidParams(
                    "the target is empty; leave it out to retry every failed message")
            }
            if let parsed = MessageID(text: target) {
                id = parsed
            } else {
                let entry = try directory.resolve(target)
                guard entry.record.trust != .blocked else {
                    throw .failed(
                        "\(entry.labelled) is blocked; 'lanchat "
                            + "unblock' it, then retry")
                }
                guard entry.record.replacedBy == nil else {
                    throw .failed(
                        "\(entry.labelled) was replaced by a newer key (verify --link): "
                            + "nothing is sent to it any more")
                }
                peer = entry.key
            }
        }
        let requeued: [StoredMessage]
        do {
            requeued = try await store.requeueFailed(id: id, peer: peer)
        } catch {
            throw .storeUnavailable("cannot re-queue: \(error)")
        }
        if requeued.isEmpty {
            if let id { try await explainNothingToRetry(id) }
            if peer == nil { try await explainFailedHeldBack() }
        }
        for (key, messages) in Dictionary(grouping: requeued, by: \.peer) {
            await registry.link(for: key).committed(messages.sorted { $0.seq < $1.seq })
            await connections.wantSession(with: key)
        }
        return RetryResult(messages: try await retriedInfos(requeued))
    }

    /// The messages `retry` re-queued, as `history` shows them: a group message once, with
    /// every member's copy as a recipient (those that did not fail too), not as one direct
    /// message per re-queued copy.
    private func retriedInfos(_ requeued: [StoredMessage]) async throws(ControlError)
        -> [MessageInfo]
    {
        var rows = requeued.filter { $0.group == nil }
        var seen: Set<MessageID> = []
        for copy in requeued where copy.group != nil && seen.insert(copy.id).inserted {
            do {
                rows += try await store.copies(of: copy.id)
            } catch {
                throw .storeUnavailable("cannot read the message: \(error)")
            }
        }
        return await groupInfos(rows, group: nil)
    }

    /// `retry` of everything re-queued nothing, yet failed messages are left to blocked
    /// peers, which "no failed messages" would hide: unblocking is the user's way to send
    /// them. (Those to a key a newer one replaced are not: what was held for it went to the
    /// new key, and nothing can be sent to the old one again.)
    private func explainFailedHeldBack() async throws(ControlError) {
        let blocked: [String]
        do {
            blocked = try await store.blockedPeersWithFailedMessages().compactMap {
                directory.entry($0)?.labelled
            }
        } catch {
            throw .storeUnavailable("cannot read failed messages: \(error)")
        }
        guard !blocked.isEmpty else { return }
        throw .failed(
            "nothing was queued again: the failed messages are to blocked peers ("
                + blocked.joined(separator: ", ") + "); 'lanchat unblock' them, then retry")
    }

    /// `retry ID` re-queued nothing: an id no message has is an error, and so is one whose
    /// message did not fail (or whose failed copies go to a blocked peer), saying which.
    private func explainNothingToRetry(_ id: MessageID) async throws(ControlError) {
        let copies: [StoredMessage]
        do {
            copies = try await store.copies(of: id)
        } catch {
            throw .storeUnavailable("cannot read the message: \(error)")
        }
        guard !copies.isEmpty else { throw .failed("no message has the id \(id)") }
        let failed = copies.filter { $0.direction == .outgoing && $0.status == .failed }
        guard !failed.isEmpty
        else { throw .failed("message \(id) did not fail: there is nothing to retry") }
        // What requeueFailed leaves failed: copies to blocked peers and to replaced keys.
        if failed.allSatisfy({ directory.entry($0.peer)?.record.replacedBy != nil }) {
            throw .failed(
                "message \(id) failed only to a key that a newer one replaced (verify --link); "
                    + "nothing is sent to it any more")
        }
        throw .failed(
            "message \(id) failed only to a blocked peer; 'lanchat unblock' it, then retry")
    }
}
