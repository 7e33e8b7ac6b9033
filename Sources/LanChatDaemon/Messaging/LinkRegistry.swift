import LanChatControl
import LanChatCore
import LanChatCrypto
import LanChatStore
import LanChatTransport
import Logging
import ServiceLifecycle
import Synchronization

/// The daemon's side of every connection (`SessionDelegate`): decides identities
/// (PROTOCOL.md §3.8), pins new keys on first contact (TOFU), keeps presence, and routes each
/// session to its peer's `PeerLink`.
///
/// A `Service`: `run()` owns every link's work as child tasks (a link's loops start when the
/// link is created and end at graceful shutdown, after the sessions were closed). Session
/// starts and ends are also told, in order, on `sessionChanges`, which the connection
/// manager consumes to plan its dials; that stream is how the two meet without holding each
/// other.
final class LinkRegistry: SessionDelegate, Service {
    let services: LinkServices
    private let state = Mutex(State())
    private let policy: IdentityPolicy
    /// Links created and not yet handed to `run()`.
    private let created: AsyncStream<PeerLink>.Continuation
    private let createdLinks: AsyncStream<PeerLink>
    private let sessionChangesContinuation: AsyncStream<SessionChange>.Continuation
    /// Session starts and ends, for the connection manager (one consumer).
    let sessionChanges: AsyncStream<SessionChange>

    private struct State {
        var links: [PeerKey: PeerLink] = [:]
        /// Set when the daemon begins to stop: a session that completes now is closed.
        var refusing = false
        /// Keys never met, per address (§3.8's per-IP throttling of new peers).
        var newKeys = NewKeyBudget()
        /// Set when `run()` ended: links made now never run, so they start stopped.
        var stopped = false
        /// Sessions counted in the directory's presence, so each is uncounted exactly once.
        var counted: Set<SessionHandle> = []
        /// Sessions from `sessionOpened` until `sessionClosed` has finished its bookkeeping
        /// (presence, its event, last seen): `closeAll` waits for them.
        var open: Set<SessionHandle> = []
        var closedWaiters: [CheckedContinuation<Void, Never>] = []
        /// `awaitReplacement` calls waiting for a session with a key, by call.
        var replacementWaiters: [UInt64: (key: PeerKey, waiter: CheckedContinuation<Void, Never>)] =
            [:]
        /// Calls whose wait was cancelled before it began (it then does not begin).
        var cancelledReplacementWaits: Set<UInt64> = []
        var lastReplacementWait: UInt64 = 0
        /// Peers met for the first time whose coming online is left for their HELLO to log.
        var onlineNotLogged: Set<PeerKey> = []
    }

    /// How long a session the peer closed as a duplicate (or replaced) waits for the peer's
    /// other session to come up here before the peer counts as gone. The peer closes ours
    /// right after its handshake for the other one completes, and that handshake's last
    /// message may be read here a moment after the close: without the wait, the peer went
    /// offline and online again a millisecond apart, both logged (found by QA).
    static let replacementGrace: Duration = .milliseconds(500)

    enum SessionChange: Sendable {
        case started(PeerKey)
        /// `lifetime`: how long the session was up (§4.6: a long one resets the redial backoff).
        case ended(PeerKey, SessionEnd, lifetime: Duration)
    }

    init(services: LinkServices) {
        self.services = services
        self.policy = IdentityPolicy(ownKey: services.directory.ownKey)
        (createdLinks, created) = AsyncStream.makeStream(of: PeerLink.self)
        (sessionChanges, sessionChangesContinuation) = AsyncStream.makeStream(
            of: SessionChange.self)
        services.groupFanout.connect { [weak self] peers, group in
            for peer in peers { await self?.existingLink(for: peer)?.sendGroupFrames(of: group) }
        }
    }

    var logger: Logger { services.logger }

    /// Runs every link's work until graceful shutdown; then asks each link to finish and
    /// waits for all of them.
    func run() async throws {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await link in createdLinks {
                    group.addTask { await link.run() }
                }
            }
        } onGracefulShutdown: {
            self.stopLinks()
        }
        stopLinks()
    }

    private func stopLinks() {
        let links = state.withLock { state in
            state.stopped = true
            return Array(state.links.values)
        }
        created.finish()
        sessionChangesContinuation.finish()
        for link in links { link.requestStop() }
    }

    /// The link for `key`, created on first use (a session, or a message to an offline peer).
    func link(for key: PeerKey) -> PeerLink {
        let (link, isNew, stopped) = state.withLock { state in
            if let existing = state.links[key] { return (existing, false, state.stopped) }
            let link = PeerLink(key: key, services: services)
            state.links[key] = link
            return (link, true, state.stopped)
        }
        if isNew {
            if stopped { link.requestStop() } else { created.yield(link) }
        }
        return link
    }

    func existingLink(for key: PeerKey) -> PeerLink? {
        state.withLock { $0.links[key] }
    }

    var allLinks: [PeerLink] { state.withLock { Array($0.links.values) } }

    /// Our new presence, as PRESENCE on every live session (§9.6).
    func announcePresence(_ profile: OwnProfile.Snapshot) async {
        for link in allLinks {
            await link.announce(.presence(profile.status, statusText: profile.statusText))
        }
    }

    // MARK: SessionDelegate

    func authorize(_ remote: PeerKey, connection: ConnectionInfo) async
        -> Result<Void, IdentityPolicy.Rejection>
    {
        var verdict = policy.decide(
            remote: remote, expectation: connection.expectation,
            isBlocked: services.directory.isBlocked(remote))
        if case .success = verdict, !services.directory.isPinned(remote),
            let address = connection.remoteAddress.map({ SourceAddress(host: $0.host) })
        {
            let now = services.clock.monotonic()
            switch state.withLock({ $0.newKeys.admit(from: address, at: now) }) {
            case .admitted:
                break
            case .refused(let firstInWindow):
                if firstInWindow {
                    logger.warning(
                        """
                        refusing keys never met from \(address) for a while: \
                        \(NewKeyBudget.perAddress) new keys came from it within the hour \
                        (a host making a new key for each connection?)
                        """)
                }
                verdict = .failure(.tooManyNewKeys)
            }
        }
        if case .failure(let rejection) = verdict {
            report(rejection, address: connection.remoteAddress)
        }
        return verdict
    }

    /// The key that answered where a static peer (`--peer`) was dialled, recorded as a peer
    /// with a key-change warning (`PeerDirectory.notePresentedKey`), within the budget of
    /// keys never met an address may bring. Only for the user's own configuration: an mDNS
    /// record naming a pinned key at another address is the spoof of PROTOCOL.md §7.3 item
    /// 43, whose key is not the user's to meet.
    func notePresented(_ key: PeerKey, insteadOf expected: PeerKey, at address: Endpoint) async {
        guard !services.directory.isPinned(key) else { return }
        let admitted = state.withLock {
            $0.newKeys.admit(
                from: SourceAddress(host: address.host), at: services.clock.monotonic())
        }
        guard case .admitted = admitted else { return }
        do {
            if try await services.directory.notePresentedKey(
                key, insteadOf: expected, at: address, at: services.now())
            {
                logger.notice(
                    """
                    new peer \(Fingerprint.keyTag(key)) pinned (unverified) where \
                    \(Fingerprint.keyTag(expected)) was dialled; no session was opened: \
                    'lanchat verify \(Fingerprint.keyTag(key))' compares its safety number
                    """)
            }
        } catch {
            logger.error("cannot record the key that answered at \(address): \(error)")
        }
    }

    private func report(_ rejection: IdentityPolicy.Rejection, address: Endpoint?) {
        let place = address?.description ?? "an unknown address"
        switch rejection {
        case .ownKey:
            logger.debug("connection to ourselves at \(place) closed")
        case .blocked:
            logger.debug("blocked key at \(place) refused")
        case .tooManyNewKeys:
            logger.debug("new key at \(place) refused: too many new keys from there")
        case .pinnedKeyMismatch(let expected, let presented):
            // Also shown by `who` and `status` (found by QA: the log alone told the user
            // nothing of a HIGH report).
            services.directory.modify(expected) {
                $0.identityAlert = IdentityAlert(
                    address: address, presented: presented, at: services.now())
            }
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
        state.withLock { $0.refusing = true }
    }

    func sessionOpened(_ session: SessionHandle) async {
        let key = session.remoteKey
        state.withLock { _ = $0.open.insert(session) }
        if state.withLock({ $0.refusing }) {
            await session.close(.shutdown)
            return
        }
        let now = services.now()
        var firstContact = false
        do {
            if try await services.directory.pinOnFirstContact(
                key, dialledAddress: session.dialledAddress, at: now)
            {
                firstContact = true
                logger.notice("new peer \(Fingerprint.keyTag(key)) pinned (unverified)")
            }
        } catch {
            logger.error("cannot pin a new peer, closing: \(error)")
            await session.close(.normal)
            return
        }
        if let address = session.dialledAddress {
            do {
                try await services.directory.recordDialledAddress(key, address, at: now)
            } catch {
                logger.error("cannot record a peer's address: \(error)")
            }
        }
        // Asked again: the stop may have begun while the store was pinning (found by
        // review: `closeAll` had not counted this session yet, and waited for it forever).
        let refusing = state.withLock { state in
            guard !state.refusing else { return true }
            _ = state.counted.insert(session)
            if firstContact { state.onlineNotLogged.insert(key) }
            return false
        }
        if refusing {
            await session.close(.shutdown)
            return
        }
        if let change = services.directory.sessionCountChanged(key, by: 1, at: now),
            change.before != change.after
        {
            // A peer met for the first time has not said its name: its coming online is
            // logged once, when its HELLO is applied (`PeerLink.logIfAnnouncedChanged`).
            // Logged here as well, the log held it online twice (found by QA).
            await presenceChanged(key, to: change.after, at: now, logged: !firstContact)
        }
        replacementArrived(for: key)
        sessionChangesContinuation.yield(.started(key))
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
        let (wasCounted, othersCounted, refusing) = state.withLock { state in
            (
                state.counted.remove(session) != nil,
                state.counted.contains { $0.remoteKey == key }, state.refusing
            )
        }
        if wasCounted, !othersCounted, !refusing, Self.replacementFollows(end) {
            await awaitReplacement(for: key)
        }
        let now = services.now()
        let peerShutDown = if case .closedByPeer(.shutdown) = end { true } else { false }
        // A first contact that ended before its HELLO was never logged online: nor is its end.
        let neverLogged =
            state.withLock { $0.onlineNotLogged.remove(key) != nil }
            && services.directory.entry(key)?.record.name.isEmpty != false
        if wasCounted,
            let change = services.directory.sessionCountChanged(
                key, by: -1, at: now, peerShutDown: peerShutDown),
            change.before != change.after
        {
            await presenceChanged(key, to: change.after, at: now, logged: !neverLogged)
        }
        let logger = self.logger
        services.directory.recordLastSeen(key, at: now) { error in
            logger.error("cannot record last seen: \(error)")
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
        sessionChangesContinuation.yield(
            .ended(key, end, lifetime: session.establishedAt.duration(to: .now)))
        let waiters = state.withLock { state in
            state.open.remove(session)
            guard state.open.isEmpty else { return [CheckedContinuation<Void, Never>]() }
            defer { state.closedWaiters = [] }
            return state.closedWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The peer closed this session because it keeps another one with us (§3.9).
    static func replacementFollows(_ end: SessionEnd) -> Bool {
        switch end {
        case .closedByPeer(.duplicate), .closedByPeer(.replaced): true
        default: false
        }
    }

    /// Returns when a session with `key` comes up, or after `replacementGrace`.
    private func awaitReplacement(for key: PeerKey) async {
        let call = state.withLock { state in
            state.lastReplacementWait += 1
            return state.lastReplacementWait
        }
        let clock = services.clock
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { waiter in
                        let cancelled = self.state.withLock { state in
                            if state.cancelledReplacementWaits.remove(call) != nil { return true }
                            state.replacementWaiters[call] = (key, waiter)
                            return false
                        }
                        if cancelled { waiter.resume() }
                    }
                } onCancel: {
                    let waiter = self.state.withLock { state in
                        guard let entry = state.replacementWaiters.removeValue(forKey: call) else {
                            state.cancelledReplacementWaits.insert(call)
                            return CheckedContinuation<Void, Never>?.none
                        }
                        return entry.waiter
                    }
                    waiter?.resume()
                }
            }
            group.addTask {
                try? await clock.sleepUntil(clock.monotonic() + Self.replacementGrace)
            }
            await group.next()
            group.cancelAll()
        }
        // A cancellation that found the wait already resumed left its mark: forget it.
        _ = state.withLock { $0.cancelledReplacementWaits.remove(call) }
    }

    /// A session with `key` came up: the closes waiting for one go on.
    private func replacementArrived(for key: PeerKey) {
        let waiters = state.withLock { state in
            let calls = state.replacementWaiters.filter { $0.value.key == key }.map(\.key)
            return calls.compactMap { state.replacementWaiters.removeValue(forKey: $0)?.waiter }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Tells listeners now, and the event log (`peer.presence`) for `watch` unless `logged`
    /// is false.
    private func presenceChanged(
        _ key: PeerKey, to presence: Presence, at now: Int64, logged: Bool = true
    ) async {
        services.events.publish(.presenceChanged(peer: key, presence))
        guard logged else { return }
        do {
            let logged: LoggedPresence =
                switch presence {
                case .online: .online(availability: services.directory.entry(key)?.record.status)
                case .discovering: .discovering
                case .offline: .offline
                }
            try await services.store.logPresence(key, logged, at: now)
        } catch {
            logger.error("cannot log a presence change: \(error)")
        }
    }

    /// The peers to dial again so that a new session tells them our new name, each with how
    /// long to wait first. A new session we dial replaces one of ours at any age, but one the
    /// peer dialled only once it is past the simultaneous-dial window (§3.9), with a second
    /// of margin for the two sides' clocks; before that it would be refused as a duplicate.
    func renewalSchedule() -> [(key: PeerKey, after: Duration)] {
        let ownKey = services.directory.ownKey
        let now = ContinuousClock.now
        let sessions = state.withLock { Array($0.counted) }
        var wait: [PeerKey: Duration] = [:]
        for session in sessions {
            let needed = Self.renewalDelay(
                age: session.establishedAt.duration(to: now),
                dialledByUs: session.initiatorKey(ownKey: ownKey) == ownKey)
            wait[session.remoteKey] = max(wait[session.remoteKey] ?? .zero, needed)
        }
        return wait.map { (key: $0.key, after: $0.value) }
    }

    /// How long to wait before dialling a session's peer again: see `renewalSchedule`.
    static func renewalDelay(age: Duration, dialledByUs: Bool) -> Duration {
        guard !dialledByUs else { return .zero }
        return max(.zero, SessionArbitration.simultaneousDialWindow + .seconds(1) - age)
    }

    /// `key` was blocked: its current session and any other it has open are closed now (a
    /// new one is refused at the handshake).
    func closeSessions(with key: PeerKey) async {
        await existingLink(for: key)?.closeSession(.normal)
        let sessions = state.withLock { $0.counted.filter { $0.remoteKey == key } }
        for session in sessions { await session.close(.normal) }
    }

    /// Sends CLOSE(reason) on every open session, current or not (clean shutdown: peers
    /// see us offline at once), forgets them in the links, and returns once every session
    /// has ended and its end is recorded. The tasks that run the sessions (listener,
    /// connection manager) are cancelled after this at shutdown: a presence change still
    /// being written then would be lost (and logged as a CancellationError). Bounded: a
    /// session's channel is closed at most `SessionHandle.closeGrace` after its CLOSE.
    func closeAll(_ reason: CloseReason) async {
        await sendCloseToAll(reason)
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if state.open.isEmpty { return true }
                state.closedWaiters.append(waiter)
                return false
            }
            if ended { waiter.resume() }
        }
    }

    /// Every open session, counted or not yet (one still being pinned is closed here too).
    private func sendCloseToAll(_ reason: CloseReason) async {
        let sessions = state.withLock { Array($0.open) }
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
