import LanChatCore
import LanChatCrypto
import LanChatStore
import Logging
import Synchronization

/// Everything about one peer key: its session phase (`LinkPhase`: which session is current
/// and our stream's flow on it), the peer's stream to us (`IncomingLedger`, §9.4), and the
/// work that moves messages.
///
/// Ownership and concurrency: an actor, so its state changes one call at a time. Its
/// long-lived work runs in `run()`, a child task of the `LinkRegistry` service, as four
/// loops, each woken by its own `Wakeup`:
/// - inbound: the batches the transport hands over, one at a time, in arrival order (so a
///   batch's classification and its commit never interleave with another batch's, whichever
///   session it came on). The transport's call waits until its batch is processed, which is
///   the backpressure that bounds memory when the store is slow.
/// - the pump: writes our stream to the session. A separate loop, so receiving never waits on
///   a peer that reads slowly.
/// - the delivery-mark writer: records ACKs as `delivered`, off the inbound path.
/// - held presence: applies the PRESENCE that `PresencePacer` held back, when its turn comes.
/// After every `await`, the code asks `phase` whether its session is still current.
actor PeerLink {
    let key: PeerKey
    let keyTag: String
    let services: LinkServices
    let logger: Logger

    /// The current session and our flow on it. The one place that says.
    var phase: LinkPhase = .offline
    /// The peer's stream to us as committed (what HELLO and ACK carry); read from the store
    /// with the first session and kept across sessions.
    var ledger: IncomingLedger?
    /// Recently committed outgoing messages by seq, so the pump rarely reads the store.
    /// Dropped with each session.
    var outboxCache = OutboxCache(capacity: maxCachedMessages)
    /// ACKs not yet known to be written as `delivered`, per stream (`PeerLink+DeliveryMarks`).
    var deliveryMarks: [UInt64: DeliveryMark] = [:]
    /// The store refused the last write of marks (said once, until one is written again).
    var deliveryMarksRefused = false
    /// What the event log was told of messages in flight (`PeerLink+SentReports`).
    var sentReports = SentReports()
    /// Batches from the transport waiting for the inbound loop (`PeerLink+Inbound`).
    var inbound: [InboundBatch] = []
    /// The name-clash warning of §3.8 row 7 was logged for this key (once per run).
    var warnedNameClash = false
    /// When TYPING(1) last went out, for the 2 s rate limit (`PeerLink+Typing`).
    var lastTypingSent: ContinuousClock.Instant?
    /// How often the peer's PRESENCE is applied (`PeerLink+Presence`).
    var presencePacer = PresencePacer()
    /// The log lines the peer's MSGs can cause, each kind at most every 10 s.
    var newStreamLines = LogLineBudget(interval: .seconds(10))
    var rejectionLines = LogLineBudget(interval: .seconds(10))

    let pumpWakeup = Wakeup()
    let marksWakeup = Wakeup()
    let inboundWakeup = Wakeup()
    /// Signalled by `requestStop()` only: cuts the delivery-mark writer's coalescing wait.
    let stopWakeup = Wakeup()
    /// Cuts the inbound loop's wait before it tries again to store a held chunk: the link
    /// stops, or a session goes down (`PeerLink+Inbound`).
    let storeRetryWakeup = Wakeup()
    /// A PRESENCE was held, or the link stops (`PeerLink+Presence`).
    let presenceWakeup = Wakeup()
    /// Set once by `requestStop()` (from any thread); the loops finish their work and return.
    private let stopRequested = Atomic<Bool>(false)

    static let maxBatch = Limits.maxAckBatch
    /// How long after a group change its former members' messages are still taken, in
    /// milliseconds (`groupPolicy`).
    static let removalGrace: Int64 = 10 * 60 * 1000
    static let maxCachedMessages = 4 * Limits.maxInFlight

    init(key: PeerKey, services: LinkServices) {
        self.key = key
        self.keyTag = Fingerprint.keyTag(key)
        self.services = services
        var logger = services.logger
        logger[metadataKey: "peer"] = "\(keyTag)"
        self.logger = logger
    }

    // MARK: Life

    /// The link's work, until `requestStop()`. Run by the registry as one of its children.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.runInbound() }
            group.addTask { await self.runPump() }
            group.addTask { await self.runDeliveryMarks() }
            group.addTask { await self.runHeldPresence() }
        }
    }

    /// Asks the loops to finish: the inbound loop answers what is queued, the writer stores
    /// the marks it holds, the pump stops. Callable from any thread.
    nonisolated func requestStop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        inboundWakeup.signal()
        pumpWakeup.signal()
        marksWakeup.signal()
        stopWakeup.signal()
        storeRetryWakeup.signal()
        presenceWakeup.signal()
    }

    nonisolated var isStopping: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }

    /// Stop asked for, or the loop's task cancelled (the registry's task group torn down).
    nonisolated var shouldStop: Bool { isStopping || Task.isCancelled }

    // MARK: Views

    /// The seqs of our stream written to the current session and not yet acknowledged (the
    /// messages `history` shows as `sent`), and the ACKs not yet written to the store.
    func liveOutgoingState() -> LiveOutgoingState {
        var state = LiveOutgoingState()
        state.inFlight = liveInFlight
        state.unrecordedDeliveries = deliveryMarks
        return state
    }

    /// Our stream's seqs written to the current session and not yet acknowledged.
    var liveInFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)? {
        guard let flow = phase.flow, let stream = flow.stream, let range = flow.inFlight else {
            return nil
        }
        return (stream, range)
    }

    var isOnline: Bool { phase.session != nil }

    // MARK: Sessions

    /// A new authenticated session with this key. Applies the one-session rule (§3.9) and,
    /// when the new one is kept, sends our HELLO first of all. Returns whether it was kept.
    func attach(_ new: any LinkSession) async -> Bool {
        let inFlight = liveInFlight
        switch phase.sessionUp(
            new, ownKey: services.directory.ownKey, now: services.clock.monotonic())
        {
        case .refuse:
            logger.debug(
                "simultaneous dial: keeping \(phase.session.map { "\($0)" } ?? "?"), closing \(new)"
            )
            await new.close(.duplicate)
            return false
        case .keep(let replacing):
            outboxCache.removeAll()
            flowDropped(inFlight)
            if let (old, reason) = replacing {
                if reason == .duplicate {
                    logger.debug("simultaneous dial: keeping \(new), closing \(old)")
                }
                await old.close(reason)
            }
        }
        do {
            let outgoing = try await services.store.outgoingState(for: key)
            let cursor = try await incomingCursor()
            let flow = OutgoingFlow(
                stream: outgoing?.stream, highestAssigned: (outgoing?.nextSeq ?? 1) - 1)
            // Overtaken by a newer session or a close while reading: that one speaks now.
            guard phase.ourHelloSent(on: new, flow: flow) else { return false }
            let profile = services.profile.snapshot
            new.sendControl([
                .hello(
                    Hello(
                        name: profile.name, presence: profile.status,
                        statusText: profile.statusText, outStream: outgoing?.stream ?? 0,
                        outNext: outgoing?.nextSeq ?? 1, inStream: cursor.stream,
                        inDelivered: cursor.delivered,
                        inRead: services.readReceipts.enabled ? cursor.read : 0))
            ])
            return true
        } catch {
            logger.error("cannot read the store for a new session: \(error)")
            phase.sessionDown(new)
            await new.close(.normal)
            return false
        }
    }

    /// The committed incoming cursor, read from the store the first time.
    private func incomingCursor() async throws(StoreError) -> IncomingCursor {
        if let ledger { return ledger.cursor }
        let cursor = try await services.store.incomingCursor(from: key)
        // Another session's attach may have loaded it (and the inbound loop moved it on)
        // while this read was under way: the first one stays.
        if ledger == nil { ledger = IncomingLedger(cursor: cursor) }
        return ledger?.cursor ?? cursor
    }

    /// The session ended. If it was the current one, its in-flight messages fall back to
    /// queued (they are simply no longer in any flow's in-flight range).
    func detach(_ old: any LinkSession) {
        let inFlight = liveInFlight
        if phase.sessionDown(old) {
            flowDropped(inFlight)
            outboxCache.removeAll()
            storeRetryWakeup.signal()
        }
    }

    /// Closes the current session with `reason` (shutdown, protocol error, block).
    func closeSession(_ reason: CloseReason) async {
        guard let current = phase.session else { return }
        detach(current)
        await current.close(reason)
    }

    func protocolViolation(_ what: String, on source: any LinkSession) async {
        logger.warning(
            "protocol error, closing the session: \(what)",
            metadata: ["session": "\(source.sessionTag)"])
        detach(source)
        await source.close(.protocolError)
    }

    // MARK: Outgoing

    /// New messages to this peer are on disk: remember them and get them moving.
    ///
    /// Messages of a stream other than the flow's were stored before a new stream began
    /// (`startNewStream` moved them onto it while their sender was on its way here; found by
    /// review: taken as they came, they turned the flow back to the old stream, which the
    /// pump then wrote again from seq 1). The store says which stream is current then.
    func committed(_ messages: [StoredMessage]) async {
        guard let last = messages.last else { return }
        if let current = phase.flow?.stream, current != last.stream {
            await adoptStoredStream()
            return
        }
        outboxCache.keep(messages)
        phase.committed(stream: last.stream, upTo: last.seq)
        pumpWakeup.signal()
    }

    private func adoptStoredStream() async {
        let state: OutgoingStreamState?
        do {
            state = try await services.store.outgoingState(for: key)
        } catch {
            logger.error("cannot read the outbox: \(error)")
            return
        }
        guard let state else { return }
        phase.committed(stream: state.stream, upTo: state.nextSeq - 1)
        pumpWakeup.signal()
    }

    /// Sends a control message (PRESENCE, TYPING) on the current session once our HELLO is
    /// out. Before that, the HELLO itself carries the presence (it is built from the profile
    /// when it is sent, on this actor). Waiting for the peer's HELLO too, as this once did,
    /// lost a change made in between: our HELLO had the old presence and the change was
    /// sent nowhere, until the next session.
    func announce(_ message: AppMessage) {
        guard phase.flow != nil else { return }
        phase.session?.sendControl([message])
    }
}
