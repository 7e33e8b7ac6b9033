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
        for link in registry.allLinks {
            await link.announce(.presence(profile.status, statusText: profile.statusText))
        }
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
            guard !target.allSatisfy(\.isWhitespace) else {
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
        if let id, requeued.isEmpty {
            try await explainNothingToRetry(id)
        }
        var infos: [MessageInfo] = []
        for (key, messages) in Dictionary(grouping: requeued, by: \.peer) {
            let sorted = messages.sorted { $0.seq < $1.seq }
            await registry.link(for: key).committed(sorted)
            await connections.wantSession(with: key)
            // Just re-queued: nothing of them is in flight or acknowledged yet.
            infos += self.infos(sorted, peer: key, live: .none)
        }
        return RetryResult(messages: infos)
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
