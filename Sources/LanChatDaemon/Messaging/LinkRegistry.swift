import LanChatControl
import LanChatCore
import LanChatCrypto
import LanChatStore
import LanChatTransport
import Logging
import Synchronization

/// The daemon's side of every connection (`SessionDelegate`): decides identities
/// (PROTOCOL.md §3.8), pins new keys on first contact (TOFU), keeps presence, and routes each
/// session to its peer's `PeerLink`.
final class LinkRegistry: SessionDelegate {
    let services: LinkServices
    private let links = Mutex<[PeerKey: PeerLink]>([:])
    /// Set when the daemon begins to stop.
    private let refusing = Mutex(false)
    /// Sessions counted in the directory's presence, so each is uncounted exactly once.
    private let counted = Mutex<Set<SessionHandle>>([])
    private let policy: IdentityPolicy
    /// Told when a session with a key ends, so the dialler can plan a redial.
    let sessionEnded: @Sendable (PeerKey, SessionEnd) async -> Void
    let sessionStarted: @Sendable (PeerKey) async -> Void

    init(
        services: LinkServices,
        sessionStarted: @escaping @Sendable (PeerKey) async -> Void = { _ in },
        sessionEnded: @escaping @Sendable (PeerKey, SessionEnd) async -> Void = { _, _ in }
    ) {
        self.services = services
        self.policy = IdentityPolicy(ownKey: services.directory.ownKey)
        self.sessionStarted = sessionStarted
        self.sessionEnded = sessionEnded
    }

    var logger: Logger { services.logger }

    /// The link for `key`, created on first use (a session, or a message to an offline peer).
    func link(for key: PeerKey) -> PeerLink {
        links.withLock { map in
            if let existing = map[key] { return existing }
            let link = PeerLink(key: key, services: services)
            map[key] = link
            return link
        }
    }

    func existingLink(for key: PeerKey) -> PeerLink? {
        links.withLock { $0[key] }
    }

    var allLinks: [PeerLink] { links.withLock { Array($0.values) } }

    // MARK: SessionDelegate

    func authorize(_ remote: PeerKey, connection: ConnectionInfo) async
        -> Result<Void, IdentityPolicy.Rejection>
    {
        let verdict = policy.decide(
            remote: remote, expectation: connection.expectation,
            isBlocked: services.directory.isBlocked(remote))
        if case .failure(let rejection) = verdict {
            report(rejection, address: connection.remoteAddress)
        }
        return verdict
    }

    private func report(_ rejection: IdentityPolicy.Rejection, address: Endpoint?) {
        let place = address?.description ?? "an unknown address"
        switch rejection {
        case .ownKey:
            logger.debug("connection to ourselves at \(place) closed")
        case .blocked:
            logger.debug("blocked key at \(place) refused")
        case .pinnedKeyMismatch(let expected, let presented):
            let name =
                services.directory.entry(expected)?.displayName ?? Fingerprint.keyTag(expected)
            logger.critical(
                """
                Could not confirm \(name)'s identity. A device at \(place) presented a different \
                key (key tag \(Fingerprint.keyTag(presented))). This may be an impersonation, or \
                \(name) reinstalled. Verify the safety number before trusting it.
                """)
        case .announcedKeyMismatch(let expected, let presented):
            logger.warning(
                """
                discovery record did not match the device at \(place) (spoofed or stale): it \
                announced \(Fingerprint.keyTag(expected)) but proved \(Fingerprint.keyTag(presented))
                """)
        }
    }

    /// The daemon is stopping: a session that completes now is closed at once.
    func refuseNewSessions() {
        refusing.withLock { $0 = true }
    }

    func sessionOpened(_ session: SessionHandle) async {
        let key = session.remoteKey
        if refusing.withLock({ $0 }) {
            await session.close(.shutdown)
            return
        }
        let now = services.now()
        if !services.directory.isPinned(key) {
            // Trust on first use (§3.8 row 6): pin the proven key as unverified.
            let keyTag = Fingerprint.keyTag(key)
            let endpoint = session.info.role == .initiator ? session.info.remoteAddress : nil
            do {
                try await services.store.recordPeerSeen(
                    key, keyTag: keyTag, name: nil, status: nil, statusText: nil,
                    endpoint: endpoint, at: now)
                services.directory.update(
                    PeerRecord(
                        key: key, keyTag: keyTag, name: "", firstSeen: now, lastSeen: now,
                        addresses: endpoint.map { [$0] } ?? []))
                logger.notice("new peer \(keyTag) pinned (unverified)")
            } catch {
                logger.error("cannot pin a new peer, closing: \(error)")
                await session.close(.normal)
                return
            }
        }
        counted.withLock { _ = $0.insert(session) }
        if let change = services.directory.sessionCountChanged(key, by: 1, at: now),
            change.before != change.after
        {
            services.events.publish(.presenceChanged(peer: key, change.after))
        }
        await sessionStarted(key)
        let kept = await link(for: key).attach(session)
        logger.info(
            kept ? "session up" : "duplicate session closed",
            metadata: [
                "peer": "\(Fingerprint.keyTag(key))", "session": "\(session.info.sessionTag)",
            ])
    }

    func session(_ session: SessionHandle, received messages: [AppMessage]) async {
        await link(for: session.remoteKey).received(messages, on: session)
    }

    func sessionClosed(_ session: SessionHandle, end: SessionEnd) async {
        let key = session.remoteKey
        await link(for: key).detach(session)
        let now = services.now()
        let wasCounted = counted.withLock { $0.remove(session) != nil }
        let peerShutDown = if case .closedByPeer(.shutdown) = end { true } else { false }
        if wasCounted,
            let change = services.directory.sessionCountChanged(
                key, by: -1, at: now, peerShutDown: peerShutDown),
            change.before != change.after
        {
            services.events.publish(.presenceChanged(peer: key, change.after))
        }
        let logger = self.logger
        services.store.setLastSeen(key, at: now) { error in
            if let error { logger.error("cannot record last seen: \(error)") }
        }
        let level: Logger.Level =
            switch end {
            case .failed(let error) where error.kind != .connectionLost: .warning
            default: .info
            }
        logger.log(
            level: level, "session ended: \(end)",
            metadata: [
                "peer": "\(Fingerprint.keyTag(key))", "session": "\(session.info.sessionTag)",
            ])
        await sessionEnded(key, end)
    }

    /// Sends CLOSE(reason) on every open session, current or not (clean shutdown: peers
    /// see us offline at once), and forgets them in the links.
    func closeAll(_ reason: CloseReason) async {
        let sessions = counted.withLock { Array($0) }
        await withTaskGroup(of: Void.self) { group in
            for link in allLinks {
                group.addTask { await link.closeSession(reason) }
            }
            for session in sessions {
                group.addTask { await session.close(reason) }
            }
        }
    }
}
