import LanChatCore
import LanChatCrypto
import LanChatStore
import LanChatTransport
import Logging

/// Everything about one peer key: its current session, our outgoing stream to it
/// (`OutgoingFlow`, §9.3/§9.5) and its stream to us (`IncomingLedger`, §9.4).
///
/// Concurrency: an actor, so its state changes one call at a time; after every `await` the
/// code re-checks that the session it works for is still the current one (a reconnect or a
/// simultaneous dial can replace it meanwhile). Inbound batches are additionally serialised
/// by `inboundGate`, because a batch's classification and its commit must not interleave
/// with another batch's. Sending runs in a separate pump task so that receiving never waits
/// for the network.
actor PeerLink {
    let key: PeerKey
    let keyTag: String
    let services: LinkServices
    var logger: Logger

    /// The session messages go out on; nil while offline.
    var session: SessionHandle?
    /// The peer's HELLO arrived on `session`: resume is known, MSGs may flow.
    var helloReceived = false
    /// Our stream's state for `session`; reset with every session.
    var flow: OutgoingFlow?
    /// The incoming cursor as classified (may be ahead of the committed one while a batch
    /// is being stored) and as committed (what HELLO and ACK may carry).
    var ledger: IncomingLedger?
    var committedCursor = IncomingCursor()
    /// Recently committed outgoing messages by seq, so the pump rarely reads the store.
    var outboxCache: [UInt64: StoredMessage] = [:]
    var pumpRunning = false
    var pumpRequested = false
    /// ACKs not yet known to be written as `delivered`, per stream (`PeerLink+DeliveryMarks`).
    var deliveryMarks: [UInt64: DeliveryMark] = [:]
    var deliveryWriterRunning = false
    var inboundBusy = false
    /// The name-clash warning of §3.8 row 7 was logged for this key (once per run).
    var warnedNameClash = false
    var inboundWaiters: [CheckedContinuation<Void, Never>] = []

    static let maxBatch = Limits.maxAckBatch
    static let maxCachedMessages = 4 * Limits.maxInFlight

    init(key: PeerKey, services: LinkServices) {
        self.key = key
        self.keyTag = Fingerprint.keyTag(key)
        self.services = services
        var logger = services.logger
        logger[metadataKey: "peer"] = "\(keyTag)"
        self.logger = logger
    }

    /// The seqs of our stream written to the current session and not yet acknowledged (the
    /// messages `history` shows as `sent`), and the ACKs not yet written to the store.
    func liveOutgoingState() -> LiveOutgoingState {
        var state = LiveOutgoingState()
        if let flow, let stream = flow.stream, let range = flow.inFlight {
            state.inFlight = (stream, range)
        }
        state.unrecordedDeliveries = deliveryMarks
        return state
    }

    var isOnline: Bool { session != nil }

    // MARK: Sessions

    /// A new authenticated session with this key. Applies the one-session rule (§3.9) and,
    /// when the new one is kept, sends our HELLO first of all. Returns whether it was kept.
    func attach(_ new: SessionHandle) async -> Bool {
        if let existing = session {
            let outcome = SessionArbitration.decide(
                existingAge: existing.establishedAt.duration(to: .now),
                existingInitiator: existing.initiatorKey(ownKey: services.directory.ownKey),
                newInitiator: new.initiatorKey(ownKey: services.directory.ownKey))
            switch outcome {
            case .keepExisting:
                logger.debug("simultaneous dial: keeping \(existing), closing \(new)")
                await new.close(.duplicate)
                return false
            case .replaceAsDuplicate:
                logger.debug("simultaneous dial: keeping \(new), closing \(existing)")
                resetSession()
                await existing.close(.duplicate)
            case .replaceAsReconnect:
                resetSession()
                await existing.close(.replaced)
            }
        }
        // Claim the link before any await, so nothing else is sent on it before HELLO.
        session = new
        helloReceived = false
        do {
            let outgoing = try await services.store.outgoingState(for: key)
            if ledger == nil {
                let cursor = try await services.store.incomingCursor(from: key)
                if ledger == nil {
                    ledger = IncomingLedger(cursor: cursor)
                    committedCursor = cursor
                }
            }
            guard session === new else { return false }
            flow = OutgoingFlow(
                stream: outgoing?.stream, highestAssigned: (outgoing?.nextSeq ?? 1) - 1)
            let profile = services.profile.snapshot
            new.sendControl([
                .hello(
                    Hello(
                        name: profile.name, presence: profile.status,
                        statusText: profile.statusText, outStream: outgoing?.stream ?? 0,
                        outNext: outgoing?.nextSeq ?? 1, inStream: committedCursor.stream,
                        inDelivered: committedCursor.delivered,
                        inRead: services.readReceipts ? committedCursor.read : 0))
            ])
            return true
        } catch {
            logger.error("cannot read the store for a new session: \(error)")
            if session === new { resetSession() }
            await new.close(.normal)
            return false
        }
    }

    /// The session ended. If it was the current one, its in-flight messages fall back to
    /// queued (they are simply no longer in any flow's in-flight range).
    func detach(_ old: SessionHandle) {
        if old === session { resetSession() }
    }

    func resetSession() {
        session = nil
        helloReceived = false
        flow = nil
        outboxCache.removeAll()
    }

    /// Closes the current session with `reason` (shutdown, protocol error, block).
    func closeSession(_ reason: CloseReason) async {
        guard let current = session else { return }
        resetSession()
        await current.close(reason)
    }

    func protocolViolation(_ what: String, on source: SessionHandle) async {
        logger.warning(
            "protocol error, closing the session: \(what)",
            metadata: ["session": "\(source.info.sessionTag)"])
        if source === session { resetSession() }
        await source.close(.protocolError)
    }

    // MARK: Outgoing

    /// New messages to this peer are on disk: remember them and get them moving.
    func committed(_ messages: [StoredMessage]) {
        guard let last = messages.last else { return }
        if outboxCache.count + messages.count <= Self.maxCachedMessages {
            for message in messages { outboxCache[message.seq] = message }
        }
        flow?.assigned(stream: last.stream, upTo: last.seq)
        schedulePump()
    }
}
