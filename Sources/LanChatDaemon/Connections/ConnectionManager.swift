import LanChatCore
import LanChatCrypto
import LanChatTransport
import Logging

/// Keeps one session with every configured and discovered peer that is not blocked (eager
/// sessions, PROTOCOL.md §10), and dials offline peers that have queued messages at their
/// last known addresses. Redials with exponential backoff and jitter (§4.6), reset when the
/// peer is rediscovered or reaches us by itself.
///
/// Concurrency: an actor; `run()` is its one long-lived loop and owns the dial tasks as
/// children, so cancelling `run()` ends every outbound connection.
actor ConnectionManager {
    private let transport: Transport
    private let registry: LinkRegistry
    private let directory: PeerDirectory
    private let clock: DaemonClock
    private let logger: Logger
    private var targets: [ServiceInstance: DialTarget] = [:]
    private var badAddresses = BadAddresses()
    private let wakeup = Wakeup()
    private(set) var discoveryState: DiscoveryState
    /// Set when the daemon begins to stop: no new dials.
    private var stopping = false
    /// When each host was last considered for a dial-back after a refused connection.
    private var dialedBack: [String: ContinuousClock.Instant] = [:]
    /// Renewal targets made so far, to name each apart.
    private var renewals = 0

    init(
        transport: Transport, registry: LinkRegistry, directory: PeerDirectory,
        clock: DaemonClock, logger: Logger, discoveryState: DiscoveryState
    ) {
        self.transport = transport
        self.registry = registry
        self.directory = directory
        self.clock = clock
        self.logger = logger
        self.discoveryState = discoveryState
    }

    // MARK: Inputs

    /// Runs until cancelled: consumes discovery events and the registry's session changes,
    /// and starts dials when they are due.
    func run(discoveries: [AsyncStream<DiscoveryEvent>]) async {
        await withDiscardingTaskGroup { group in
            for events in discoveries {
                group.addTask {
                    for await event in events { await self.handle(event) }
                }
            }
            let refused = transport.refusedInbound
            group.addTask {
                for await host in refused { await self.inboundRefused(from: host) }
            }
            let sessionChanges = registry.sessionChanges
            group.addTask {
                for await change in sessionChanges {
                    switch change {
                    case .started(let key): await self.sessionStarted(with: key)
                    case .ended(let key, let end, let lifetime):
                        await self.sessionEnded(with: key, end: end, lifetime: lifetime)
                    }
                }
            }
            while !Task.isCancelled {
                let nextDue = startDueDials(in: &group)
                await wakeup.wait(until: nextDue, clock: clock)
            }
        }
    }

    func handle(_ event: DiscoveryEvent) {
        switch event {
        case .found(let peer):
            found(peer)
        case .lost(let instance):
            directory.withdraw(instance)
            if targets[instance]?.dialling == true {
                targets[instance]?.wanted = false
            } else {
                targets[instance] = nil
            }
        case .stateChanged(let state):
            discoveryState = state
        }
    }

    private func found(_ peer: DiscoveredPeer) {
        let key = peer.announcement?.key
        // A blocked key's record is kept (it shows as discovered) but never dialled: see
        // `startDueDials`, and `unblocked` for when that changes.
        if let key, key == directory.ownKey { return }
        var target =
            targets[peer.instance]
            ?? DialTarget(
                instance: peer.instance, kind: .announced, endpoints: peer.endpoints,
                hostName: peer.hostName, nextAttempt: clock.monotonic())
        if let previous = target.announcedKey, previous != key {
            // Same instance, another key now: it no longer announces the previous one.
            directory.announcement(
                peer.instance, of: previous, present: false, hostName: nil,
                now: clock.wallMilliseconds())
        }
        let changed =
            target.endpoints != peer.endpoints || target.announcedKey != key
            || target.kind != .announced || !target.wanted
        target.kind = .announced
        target.wanted = true
        target.endpoints = peer.endpoints
        target.hostName = peer.hostName
        target.announcedKey = key
        if changed || targets[peer.instance] == nil {
            // Rediscovered: try at once (§4.6).
            target.backoff.reset()
            target.nextAttempt = clock.monotonic()
        }
        targets[peer.instance] = target
        // A record whose every address already presented another key is not evidence that
        // the key is around: it must not show the peer as discovering.
        if let key,
            !badAddresses.usable(peer.endpoints, expecting: key, at: clock.monotonic()).usable
                .isEmpty
        {
            directory.announcement(
                peer.instance, of: key, present: true, hostName: peer.hostName,
                endpoints: peer.endpoints, now: clock.wallMilliseconds())
        }
        wakeup.signal()
    }

    /// Messages wait for `key`: make sure something dials it.
    func wantSession(with key: PeerKey) {
        guard directory.entry(key)?.sessions ?? 0 == 0 else { return }
        guard !targets.values.contains(where: { $0.key == key && $0.wanted }) else { return }
        guard let record = directory.entry(key)?.record, !record.addresses.isEmpty else { return }
        let instance = ServiceInstance(name: "outbox:\(key.id)", interface: nil)
        targets[instance] = DialTarget(
            instance: instance, kind: .outbox, endpoints: record.addresses, hostName: "",
            announcedKey: key, nextAttempt: clock.monotonic())
        wakeup.signal()
    }

    /// Our display name changed: each peer in `schedule` (a key with a session, and how long
    /// to wait before dialling it: see `LinkRegistry.renewalSchedule`) is dialled once more,
    /// at the addresses it is announced at or was last reached at, so that a new session
    /// carries the new name in its HELLO and replaces the current one (newest wins, §3.9).
    /// A peer we know no address of keeps its session and learns the name with its next one.
    /// Returns the keys dialled.
    func renewSessions(_ schedule: [(key: PeerKey, after: Duration)]) -> [PeerKey] {
        let now = clock.monotonic()
        var renewing: [PeerKey] = []
        for (key, delay) in schedule where !directory.isBlocked(key) {
            var endpoints: [Endpoint] = []
            for target in targets.values where target.key == key && target.kind == .announced {
                endpoints += target.endpoints.filter { !endpoints.contains($0) }
            }
            let stored = directory.entry(key)?.record.addresses ?? []
            endpoints += stored.filter { !endpoints.contains($0) }
            guard !endpoints.isEmpty else { continue }
            // One target per rename: an earlier renewal's session, still up, has the older
            // name; one not dialled yet will carry the new one, so it is replaced.
            for (instance, target) in targets
            where target.kind == .renewal && target.key == key && !target.dialling {
                targets[instance] = nil
            }
            renewals += 1
            let instance = ServiceInstance(name: "renewal:\(renewals):\(key.id)", interface: nil)
            targets[instance] = DialTarget(
                instance: instance, kind: .renewal, endpoints: endpoints, hostName: "",
                announcedKey: key, nextAttempt: now + delay)
            renewing.append(key)
        }
        wakeup.signal()
        return renewing
    }

    /// A session with `key` came up (inbound or outbound): an outbox target for it has done
    /// its job. Backoff is not reset here: only a session that lived 60 s resets it (§4.6),
    /// or short sessions that keep failing (a peer whose disk is full) would redial in a loop.
    private func sessionStarted(with key: PeerKey) {
        for (instance, target) in targets where target.key == key {
            if target.kind == .outbox && !target.dialling { targets[instance] = nil }
        }
    }

    /// A session with `key` ended: targets skipped while it was online may dial now, unless
    /// the peer said it is shutting down: then wait (mDNS tells us when it is back; a static
    /// peer is dialled again from the backoff's start).
    ///
    /// A session that lived `RedialBackoff.stableSession` resets the backoff of every target
    /// of its key, whichever side dialled it (§4.6), and the key is dialled again in about a
    /// second. Without this, a session accepted from the peer left our own targets with the
    /// backoff of the failed dials before it: at 50 hosts, sessions that died after minutes
    /// were redialled only 28 – 43 s later (2^5 s, from the handshake storm at start).
    func sessionEnded(with key: PeerKey, end: SessionEnd, lifetime: Duration) {
        let now = clock.monotonic()
        let shutDown = if case .closedByPeer(.shutdown) = end { true } else { false }
        for instance in targets.keys where targets[instance]?.key == key {
            guard var target = targets[instance], !target.dialling else { continue }
            if shutDown {
                // A static peer that stopped cleanly is most likely restarting, and only our
                // dials can tell when it is back (mDNS tells for the others): its backoff
                // starts over (found by QA: a peer restarted a few times in a row was
                // dialled again after 2 s, then 8 s, 32 s, 2 min and 5 min).
                if target.kind == .announced, instance.interface == nil {
                    target.backoff.reset()
                }
                target.nextAttempt = now + target.backoff.nextDelay()
            } else if lifetime >= RedialBackoff.stableSession {
                target.backoff.sessionEnded(after: lifetime)
                target.nextAttempt = min(target.nextAttempt, now + target.backoff.nextDelay())
            }
            targets[instance] = target
        }
        wakeup.signal()
    }

    /// `key` was unblocked: its records are dialled again at once, and its stored addresses
    /// when messages wait for it.
    func unblocked(_ key: PeerKey) {
        let now = clock.monotonic()
        for (instance, target) in targets where target.key == key {
            targets[instance]?.backoff.reset()
            targets[instance]?.nextAttempt = now
        }
        wantSession(with: key)
        wakeup.signal()
    }

    /// Admission refused a connection from `host` (a flood of strangers can fill the
    /// handshake slots): a known peer last reached there and without a session may have been
    /// the one refused, so it is dialled back now, on the dial budget inbound traffic cannot
    /// take. At most once a second per host, however many connections are refused.
    func inboundRefused(from host: String) {
        let now = clock.monotonic()
        if let last = dialedBack[host], last.duration(to: now) < .seconds(1) { return }
        if dialedBack.count > 1024 {
            dialedBack = dialedBack.filter { $0.value.duration(to: now) < .seconds(1) }
        }
        dialedBack[host] = now
        for entry in directory.all
        where entry.pinned && entry.sessions == 0 && entry.record.trust != .blocked
            && entry.record.addresses.contains(where: { $0.host == host })
        {
            let existing = targets.filter { $0.value.key == entry.key && $0.value.wanted }
            guard !existing.isEmpty else {
                wantSession(with: entry.key)
                continue
            }
            for (instance, target) in existing where !target.dialling {
                targets[instance]?.nextAttempt = now
            }
        }
        wakeup.signal()
    }

    /// The daemon is stopping: start no more dials.
    func stopDialling() {
        stopping = true
    }

    var targetCount: Int { targets.count }

    /// When `key` is next dialled, if something wants a session with it (for tests).
    func nextAttempt(for key: PeerKey) -> ContinuousClock.Instant? {
        targets.values.filter { $0.key == key && $0.wanted }.map(\.nextAttempt).min()
    }

    // MARK: Dialling

    private func startDueDials(in group: inout DiscardingTaskGroup) -> ContinuousClock.Instant? {
        guard !stopping else { return nil }
        let now = clock.monotonic()
        var nextDue: ContinuousClock.Instant?
        for (instance, target) in targets where !target.dialling && target.wanted {
            let key = dialledKey(target)
            let online = key.map { directory.entry($0)?.sessions ?? 0 > 0 } ?? false
            if online && target.kind != .renewal { continue }
            if !online && target.kind == .renewal {
                // The session ended meanwhile: the next one carries the new name anyway.
                targets[instance] = nil
                continue
            }
            if let key, directory.isBlocked(key) { continue }
            let (endpoints, release) = badAddresses.usable(
                target.endpoints, expecting: key, at: now)
            guard !endpoints.isEmpty else {
                if let release { nextDue = min(nextDue ?? release, release) }
                continue
            }
            guard target.nextAttempt <= now else {
                nextDue = min(nextDue ?? target.nextAttempt, target.nextAttempt)
                continue
            }
            targets[instance]?.dialling = true
            let expectation = expectation(for: target)
            let transport = self.transport
            let registry = self.registry
            let isStatic = target.kind == .announced && instance.interface == nil
            group.addTask {
                var last: (Endpoint, Transport.DialOutcome)?
                for endpoint in endpoints {
                    let outcome = await transport.dial(
                        endpoint, expectation: expectation, delegate: registry)
                    last = (endpoint, outcome)
                    if case .connectFailed = outcome { continue }
                    break
                }
                guard let (endpoint, outcome) = last else { return }
                await self.finished(instance, endpoint: endpoint, outcome: outcome)
                // Another key where the user's `--peer` pointed: most likely the peer
                // reinstalled; known, it can be compared and linked (found by QA).
                if isStatic,
                    case .identityRejected(.pinnedKeyMismatch(let expected, let presented)) =
                        outcome
                {
                    await registry.notePresented(presented, insteadOf: expected, at: endpoint)
                }
            }
        }
        return nextDue
    }

    private func expectation(for target: DialTarget) -> IdentityPolicy.Expectation? {
        guard let key = dialledKey(target) else { return nil }
        return directory.isPinned(key) ? .pinned(key) : .announced(key)
    }

    /// The key a target is dialled for: the one it names or learned, or for a static peer
    /// (`--peer`) the key that took that one over (`verify --link`), whose session is the
    /// one wanted now. An mDNS record announces the key that is there: a retired key's own
    /// record is dialled for that key, not taken for an impostor of its replacement.
    private func dialledKey(_ target: DialTarget) -> PeerKey? {
        guard target.instance.interface == nil else { return target.key }
        return target.key.map(directory.currentKey(for:))
    }

    /// A dial of `instance` ended (internal, not private: tests feed it outcomes).
    func finished(
        _ instance: ServiceInstance, endpoint: Endpoint, outcome: Transport.DialOutcome
    ) {
        guard var target = targets[instance] else { return }
        target.dialling = false
        let now = clock.monotonic()
        var dialFailure: String?
        switch outcome {
        case .sessionEnded(let key, let lifetime, _):
            if target.announcedKey == nil { target.learnedKey = key }
            target.backoff.sessionEnded(after: lifetime)
            if target.kind == .outbox { target.wanted = false }
        case .identityRejected(let rejection):
            switch rejection {
            case .pinnedKeyMismatch(let expected, _), .announcedKeyMismatch(let expected, _):
                badAddresses.mark(endpoint, expecting: expected, at: now)
                // The record is not what it claims: it must not make `expected` look present.
                directory.announcement(
                    instance, of: expected, present: false, hostName: nil,
                    now: clock.wallMilliseconds())
            case .ownKey, .blocked:
                target.wanted = false
            case .tooManyNewKeys:
                break  // dialled again with the backoff; the budget frees up within the hour
            }
        case .connectFailed(let error), .handshakeFailed(let error):
            dialFailure = "\(error)"
        }
        let firstInARow = target.backoff.failures == 0
        let delay = target.backoff.nextDelay()
        if let dialFailure {
            // The first failure of a run at info (why a discovered peer is not online is
            // worth a line), its retries at debug: an address that stays dead costs the
            // journal one line, not one per attempt.
            // A peer dialled for its waiting messages by its name, not the target's inner
            // "outbox:<id>" (found by QA).
            let label = target.key.flatMap { directory.entry($0)?.labelled } ?? instance.name
            let what =
                switch target.kind {
                case .outbox: label + " (messages wait for it)"
                case .renewal: label + " to renew the session"
                case .announced: instance.name
                }
            let next = "trying again in \(delay.wholeMilliseconds) ms"
            logger.log(
                level: firstInARow ? .info : .debug,
                "cannot reach \(what): \(dialFailure); \(next)",
                metadata: ["attempt": "\(target.backoff.failures)"])
        }
        target.nextAttempt = now + delay
        // A renewal is done once a session carried the name. One that could not be made is
        // tried again with the backoff while the session with the old name lasts (found by
        // QA: sixty quick renames met the peer's rate limit, and the peer kept an old name).
        if target.kind == .renewal && dialFailure == nil { target.wanted = false }
        targets[instance] = target.wanted ? target : nil
        wakeup.signal()
    }
}
