import LanChatControl
import LanChatCore
import LanChatCrypto
import LanChatStore

extension Messenger {
    func status() async throws(ControlError) -> StatusResult {
        // The links' unwritten marks first, then one store snapshot (`counts(acknowledged:)`).
        let counts: MessageStore.Counts
        do {
            counts = try await store.counts(acknowledged: await acknowledgedRanges())
        } catch {
            throw .storeUnavailable("cannot read the store: \(error)")
        }
        let profile = services.profile.snapshot
        let own = directory.ownKey
        let avahi = runtime.mdnsEnabled ? await connections.discoveryState.rawValue : "disabled"
        return StatusResult(
            name: profile.name, id: own.id, keyTag: Fingerprint.keyTag(own),
            status: Availability(rawValue: profile.status.availability) ?? .available,
            statusText: profile.statusText, version: LanChatVersion.current,
            apiVersion: ControlAPI.version, startedAt: runtime.startedAt,
            uptimeSeconds: Double(
                runtime.startInstant.duration(to: services.clock.monotonic()).components.seconds),
            listening: runtime.listening(), avahi: avahi, peersOnline: directory.onlineCount,
            queued: counts.queued, unread: counts.unread, dataDir: runtime.dataDirectory,
            socket: runtime.socketPath, keyChanges: keyChangeInfos,
            identityAlerts: identityAlertInfos, reloadError: runtime.reloadError())
    }

    /// What the links know the peers acknowledged and the store may not show yet
    /// (`PeerLink+DeliveryMarks` writes `delivered` a little later).
    private func acknowledgedRanges() async -> [MessageStore.AcknowledgedRange] {
        var ranges: [MessageStore.AcknowledgedRange] = []
        for link in registry.allLinks {
            for (stream, mark) in await link.liveOutgoingState().unrecordedDeliveries {
                ranges.append(.init(peer: link.key, stream: stream, upTo: mark.upTo))
            }
        }
        return ranges
    }

    func who(_ params: WhoParams) -> WhoResult {
        let showAll = params.all ?? false
        let query = params.query.flatMap { $0.isEmpty ? nil : $0 }
        let peers = directory.all
            .filter { showAll || $0.presence == .online }
            .filter { entry in query.map { PeerResolver.matches(entry, query: $0) } ?? true }
            .sorted(by: PeerResolver.byName)
            .map(\.info)
        return WhoResult(
            peers: peers, keyChanges: keyChangeInfos, identityAlerts: identityAlertInfos)
    }

    func history(_ params: HistoryParams) async throws(ControlError) -> HistoryResult {
        if let group = try await groupTarget(params.peer) {
            return try await groupHistory(group, params: params)
        }
        let limit = try params.validatedLimit()
        let peer = try conversationPeer(params.peer)
        let anchor: MessageStore.PageAnchor
        switch (params.before, params.after) {
        case (nil, nil): anchor = .latest
        case (let before?, nil): anchor = .before(try Self.messageID(before))
        case (nil, let after?): anchor = .after(try Self.messageID(after))
        default: throw .invalidParams("give at most one of \"before\" and \"after\"")
        }
        let live = await liveState(for: peer.key)
        let page: MessageStore.HistoryPage
        do {
            page = try await store.history(with: peer.key, limit: limit, anchor: anchor)
        } catch  where error.kind == .notFound {
            throw .badInput("\(error.description) with \(peer.displayName)")
        } catch {
            throw .storeUnavailable("cannot read history: \(error)")
        }
        var result = HistoryResult(
            peer: peer.info, messages: infos(page.messages, peer: peer.key, live: live),
            hasOlder: page.hasOlder, hasNewer: page.hasNewer)
        result.fitToBudget(anchor: anchor)
        return result
    }

    static func messageID(_ text: String) throws(ControlError) -> MessageID {
        guard let id = MessageID(text: text) else {
            throw .invalidParams("'\(text)' is not a message id (8-4-4-4-12 hex)")
        }
        return id
    }
}
