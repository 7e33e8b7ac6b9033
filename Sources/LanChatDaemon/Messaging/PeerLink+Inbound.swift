import LanChatControl
import LanChatCore
import LanChatStore
import LanChatTransport

/// One read's worth of application messages from a session, waiting for the inbound loop.
struct InboundBatch {
    let messages: [AppMessage]
    let source: any LinkSession
    /// Resumed once the batch is processed: the transport reads more only then.
    let processed: CheckedContinuation<Void, Never>
}

/// Receiving: HELLO (resume), MSG (store, then ACK), ACK, READ, REJECT, PRESENCE. The
/// transport hands over one batch at a time per connection, in wire order; the link's inbound
/// loop processes batches one at a time, from whichever session, in arrival order.
extension PeerLink {
    /// Queues a batch for the inbound loop and returns when it has been processed. After the
    /// link stopped, nothing is processed any more (the daemon is going down).
    func received(_ messages: [AppMessage], on source: any LinkSession) async {
        await withCheckedContinuation { (processed: CheckedContinuation<Void, Never>) in
            guard !isStopping else { return processed.resume() }
            inbound.append(InboundBatch(messages: messages, source: source, processed: processed))
            inboundWakeup.signal()
        }
    }

    func runInbound() async {
        while !inbound.isEmpty || !shouldStop {
            guard !inbound.isEmpty else {
                await inboundWakeup.wait(until: nil)
                continue
            }
            let batch = inbound.removeFirst()
            if !shouldStop { await process(batch.messages, on: batch.source) }
            batch.processed.resume()
        }
        // Cancelled rather than stopped: nothing processes batches from now on, so the flag
        // must turn later ones away, and the ones that came in meanwhile are answered.
        requestStop()
        for batch in inbound { batch.processed.resume() }
        inbound.removeAll()
    }

    private func process(_ messages: [AppMessage], on source: any LinkSession) async {
        var index = messages.startIndex
        while index < messages.endIndex {
            let message = messages[index]
            switch phase {
            case .offline, .opening:
                // Not (or no longer) the current session: what it says does not count.
                return
            case .awaitingHello(let session, _, _):
                guard session === source else { return }
                guard case .hello(let hello) = message else {
                    return await protocolViolation("a message before HELLO", on: source)
                }
                await applyHello(hello, on: source)
                index += 1
                continue
            case .established(let session, _):
                guard session === source else { return }
            }
            switch message {
            case .hello:
                return await protocolViolation("a second HELLO", on: source)
            case .message:
                // A run of consecutive MSGs is stored in chunks of at most 256: one
                // transaction, one fsync and one ACK per chunk (group commit, §9.4).
                var run: [WireMessage] = []
                while index < messages.endIndex, run.count < Self.maxBatch,
                    case .message(let wire) = messages[index]
                {
                    run.append(wire)
                    index += 1
                }
                guard await accept(run, on: source) else { return }
                continue
            case .ack(let stream, let delivered):
                // Consecutive ACKs are cumulative: only the last one matters.
                var highest = delivered
                while index + 1 < messages.endIndex,
                    case .ack(stream, let next) = messages[index + 1]
                {
                    highest = max(highest, next)
                    index += 1
                }
                guard await applyAck(stream: stream, delivered: highest, on: source) else { return }
            case .read(let stream, let read):
                guard await applyRead(stream: stream, read: read, on: source) else { return }
            case .reject(let stream, let seq, let reason):
                guard await applyReject(stream: stream, seq: seq, reason: reason, on: source)
                else { return }
            case .presence(let status, let statusText):
                await offerPresence(.init(status: status, text: statusText))
            case .typing(let typing):
                services.events.publish(.typingReceived(peer: key, typing))
            case .group(let update):
                // Only behind the capability bit (PROTOCOL.md §3.7, §9.7): a peer that did not
                // announce groups sends none, and one it sends anyway is an unknown kind to
                // this session (QA: a group was applied from such a peer, which we then
                // could not send to).
                guard source.capabilities & Capabilities.groups != 0 else {
                    logger.debug("GROUP \(update.id) on a session without groups ignored")
                    break
                }
                // A low-order key can never complete a handshake (§7.1): such a member would
                // hold every group message at "1 of 2" for good. The codec, which has no
                // libsodium, leaves this check to us.
                guard !update.members.contains(where: \.isLowOrder) else {
                    return await protocolViolation(
                        "a GROUP member key is a low-order point", on: source)
                }
                await groupReceived(update)
            case .unknown:
                break
            }
            index += 1
        }
    }

    // MARK: HELLO

    /// The peer's HELLO on the session awaiting it: records what it says about itself,
    /// resumes our stream where the peer's cursor says (§9.3), and establishes the session.
    private func applyHello(_ hello: Hello, on source: any LinkSession) async {
        let now = services.now()
        let before = announced
        do {
            try await services.directory.recordHello(
                key, name: hello.name, status: hello.presence.availability,
                statusText: hello.statusText, dialledAddress: source.dialledAddress, at: now)
        } catch {
            logger.error("cannot record the peer's HELLO: \(error)")
        }
        await logIfAnnouncedChanged(from: before, at: now)
        // Row 7 is about a key that is new: the first name it says. A key we knew under
        // another name that takes a known one is no key change (found by QA: carol renamed
        // "Bob" was offered bob's conversation by `verify --link`).
        if before.map({ $0.name.isEmpty }) ?? true {
            await warnIfNameBelongsToAnotherKey(hello.name, at: now)
        }
        let outgoing: OutgoingStreamState?
        do {
            outgoing = try await services.store.outgoingState(for: key)
        } catch {
            logger.error("cannot read the outbox: \(error)")
            return await closeAfterStoreFailure(source)
        }
        let resume = phase.updateFlow(on: source) { flow in
            flow.helloReceived(
                inStream: hello.inStream, inDelivered: hello.inDelivered, inRead: hello.inRead,
                stored: outgoing.map {
                    OutgoingFlow.StoredStart(
                        stream: $0.stream, firstUndelivered: $0.firstUndelivered ?? $0.nextSeq)
                })
        }
        guard let resume else { return }  // replaced or closed during the read
        if let stream = outgoing?.stream, resume.deliveredUpTo != nil || resume.readUpTo != nil {
            do {
                let changed = try await services.store.applyResume(
                    peer: key, stream: stream, deliveredUpTo: resume.deliveredUpTo,
                    readUpTo: resume.readUpTo, at: now)
                publishStatus(changed)
            } catch {
                logger.error("cannot record the peer's resume point: \(error)")
                return await closeAfterStoreFailure(source)
            }
        }
        if resume.peerAheadOfStream {
            logger.warning(
                "the peer has seen more of our stream than we stored (restored backup?); starting a new stream"
            )
            guard await startNewStream(on: source) else {
                return await closeAfterStoreFailure(source)
            }
        }
        // GROUP frames before any MSG: a member learns a group before its messages.
        let groupFrames = await groupFramesForNewSession(source)
        if phase.peerHelloApplied(on: source) {
            if !groupFrames.isEmpty { source.sendControl(groupFrames) }
            pumpWakeup.signal()
        }
    }

    /// Our queued messages moved to a fresh stream from seq 1, which the peer adopts
    /// (§9.4): for a stream we cannot go on with. False when the store failed.
    /// `resending`: the seq where the peer resumes our stream and we hold nothing
    /// (`MessageStore.rotateStream`).
    func startNewStream(on session: any LinkSession, resending from: UInt64? = nil) async -> Bool {
        do {
            let fresh = try await services.store.rotateStream(to: key, resending: from)
            let state = try await services.store.outgoingState(for: key)
            outboxCache.removeAll()
            phase.updateFlow(on: session) {
                $0.assigned(stream: fresh, upTo: (state?.nextSeq ?? 1) - 1)
            }
            return true
        } catch {
            logger.error("cannot start a new stream: \(error)")
            return false
        }
    }

    /// The store failed us mid-session: close it (the peer resends what we did not store).
    private func closeAfterStoreFailure(_ source: any LinkSession) async {
        detach(source)
        await source.close(.normal)
    }

    /// PROTOCOL.md §3.8 row 7: a new key presenting the display name of another pinned peer
    /// is a new, separate peer (never merged); the user is told, once.
    private func warnIfNameBelongsToAnotherKey(_ name: String, at now: Int64) async {
        guard !warnedNameClash, !name.isEmpty else { return }
        let other: PeerEntry?
        do {
            other = try await services.directory.noteNameClash(key, name: name, at: now)
        } catch {
            logger.error("cannot record a key change: \(error)")
            return
        }
        guard let other else { return }
        warnedNameClash = true
        logger.warning(
            """
            \(name) is now using a different key (key tag \(keyTag)); the earlier key \
            \(other.record.keyTag) stays pinned and the two are kept apart. Verify the safety \
            number before trusting the new one.
            """)
    }

    // MARK: MSG

    /// Classifies, stores and acknowledges one chunk. Returns false when the session ended.
    /// Only the inbound loop calls it, so no other batch moves the ledger meanwhile.
    private func accept(_ run: [WireMessage], on source: any LinkSession) async -> Bool {
        guard phase.isCurrent(source), let committed = ledger else { return false }
        if services.directory.isBlocked(key) {
            // Blocked while the session was up: nothing from it is stored or acknowledged.
            await closeSession(.normal)
            return false
        }
        var working = committed
        var records: [IncomingRecord] = []
        var replies: [AppMessage] = []
        var violation: String?
        let now = services.now()
        let groups = run.contains { $0.group != nil } ? await groupsOf(run) : [:]
        guard phase.isCurrent(source) else { return false }
        for var message in run {
            // The sender's clock is its own business, but a time it cannot be right about
            // must not reach history (`SenderClock`).
            message.sentAt = SenderClock.shownTime(sentAt: message.sentAt, receivedAt: now)
            if message.stream != working.cursor.stream, message.seq > 1,
                let heldBack = newStreamLines.take(at: services.clock.monotonic())
            {
                // Its sender has these acknowledged by an earlier store of ours: say they are
                // not in this one, since nobody can ask for them again (found by QA).
                logger.warning(
                    "\(PeerDirectory.keyTag(key)) sent message \(message.seq) of a stream new to this store: its messages 1 to \(message.seq - 1) were acknowledged by an earlier store of this node (restored from a backup, or a new data directory) and are not here\(LogLineBudget.suffix(heldBack))"
                )
            }
            switch working.classify(message, policy: { groupPolicy($0, groups: groups) }) {
            case .store:
                if case .valid(let text) = message.text {
                    records.append(IncomingRecord(message: message, text: text))
                }
            case .reject(let reason):
                if let heldBack = rejectionLines.take(at: services.clock.monotonic()) {
                    logger.info(
                        "rejecting message \(message.seq): \(reason.why)\(LogLineBudget.suffix(heldBack))"
                    )
                }
                replies.append(.reject(stream: message.stream, seq: message.seq, reason: reason))
            case .duplicate:
                break
            case .protocolError(let what):
                violation = what
            }
            if violation != nil { break }
        }
        let cursor = working.cursor
        // REJECTs before the ACK that covers them; the ACK only once the commit is durable.
        replies.append(.ack(stream: cursor.stream, delivered: cursor.delivered))
        if cursor != committed.cursor {
            var failures = 0
            while true {
                do throws(StoreError) {
                    try await store(
                        records, working: &working, groups: groups, replies: replies, at: now,
                        on: source)
                    if failures > 0 {
                        logger.notice("stored the received messages held since the store failed")
                    }
                    ledger = working
                    break
                } catch {
                    // Nothing of the chunk is stored and nothing is acknowledged. Held, not
                    // dropped with the session: a disk that fills ended the session over and
                    // over, every reconnect failing again, the peer's presence flapping on both
                    // sides and five errors logged a time (seen on a full tmpfs). The transport
                    // reads no more meanwhile (the peer's window fills) and does not count that
                    // time against its dead timeout; our keepalive PINGs keep the peer's from
                    // ending the session.
                    failures += 1
                    guard await holdAfterStoreFailure(error, failures: failures, on: source)
                    else {
                        await closeAfterStoreFailure(source)
                        return false
                    }
                }
            }
        } else {
            source.sendControl(replies)
        }
        if let violation {
            await protocolViolation(violation, on: source)
            return false
        }
        return true
    }

    /// The longest wait between two tries to store a held chunk.
    static let storeRetryCap: Duration = .seconds(30)

    /// After the `failures`th failure to store a chunk: logs (the first time), waits 1 s, 2 s,
    /// 4 s… up to `storeRetryCap`, and says whether to try again: false once the session is
    /// no longer current (closed or replaced meanwhile) or the link is stopping.
    private func holdAfterStoreFailure(
        _ error: StoreError, failures: Int, on source: any LinkSession
    ) async -> Bool {
        let delay = min(Self.storeRetryCap, .seconds(1 << min(failures - 1, 5)))
        if failures == 1 {
            logger.error(
                "cannot store received messages, holding them and trying again: \(error)")
        } else {
            logger.info("still cannot store the held messages; next try in \(delay): \(error)")
        }
        await storeRetryWakeup.wait(
            until: services.clock.monotonic() + delay, clock: services.clock)
        return !shouldStop && phase.isCurrent(source)
    }

    /// Stores a chunk with the cursor `working` has reached, in one transaction; the ACK
    /// (`replies`) goes out as it commits. Then `working` keeps a read the user made
    /// meanwhile, and the messages are published (notifier, typing indicator).
    private func store(
        _ records: [IncomingRecord], working: inout IncomingLedger, groups: [GroupID: StoredGroup],
        replies: [AppMessage], at now: Int64, on source: any LinkSession
    ) async throws(StoreError) {
        // Under `--accept contacts` a non-contact's messages open a request first, so they are
        // stored apart from the inbox (and announce nothing). Group messages are the group's:
        // a group request holds them, an accepted group is consent (PeerLink+Groups).
        var isRequest = false
        if records.contains(where: { $0.message.group == nil }) {
            isRequest = try await services.directory.admitMessages(from: key, at: now)
        } else if !records.isEmpty {
            isRequest = records.allSatisfy { record in
                record.message.group.flatMap { GroupID(bytes: $0) }
                    .flatMap { groups[$0]?.requestFrom } != nil
            }
        }
        // A burst is staged: durable with the cursor, stored as messages a moment later
        // (`MessageStore.storeReceived`). The ACK is sent from the store's writer as the
        // transaction commits, not after the hop back to this actor: the peer's `send --wait`
        // waits for it.
        try await services.store.storeReceived(
            from: key, records: records, cursor: working.cursor, at: now,
            onCommit: { source.sendControl(replies) })
        // The user may have read meanwhile (`readLocally`): what was told is kept, and what
        // reaches into this chunk, which the ledger did not hold yet (the ACK left at the
        // commit, before this hop back), is told now.
        if let current = ledger {
            let stream = working.cursor.stream
            if current.cursor.stream == stream {
                _ = working.markRead(stream: stream, upTo: current.cursor.read)
            }
            if let request = current.readRequest,
                let further = working.markRead(stream: request.stream, upTo: request.upTo)
            {
                tellRead(stream: stream, read: further)
            }
        }
        // Duplicates by seq never get here; one by id alone (the second line of defence, a
        // peer that lost its stream) is dropped when stored, after this.
        if !records.isEmpty && !isRequest {
            services.events.publish(.messagesReceived(peer: key, records))
        }
    }

    // MARK: ACK, READ, REJECT, PRESENCE

    /// Applies a flow step for `source`; a step the flow refuses is a protocol violation.
    /// Returns nil when the session ended (replaced, or closed for the violation).
    private func flowStep<Result>(
        on source: any LinkSession,
        _ step: (inout OutgoingFlow) throws(OutgoingFlow.Violation) -> Result
    ) async -> Result? {
        let outcome: Swift.Result<Result, OutgoingFlow.Violation>? = phase.updateFlow(on: source) {
            flow in
            do throws(OutgoingFlow.Violation) {
                return .success(try step(&flow))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .none:
            return nil
        case .success(let value):
            return value
        case .failure(let violation):
            await protocolViolation(violation.description, on: source)
            return nil
        }
    }

    private func applyAck(stream: UInt64, delivered: UInt64, on source: any LinkSession) async
        -> Bool
    {
        guard
            let step = await flowStep(
                on: source,
                { flow throws(OutgoingFlow.Violation) in
                    try flow.ackReceived(stream: stream, delivered: delivered)
                })
        else { return false }
        guard let upTo = step else { return true }
        outboxCache.forget(through: upTo)
        pumpWakeup.signal()
        let now = services.now()
        services.events.publish(.acknowledged(peer: key, stream: stream, upTo: upTo, at: now))
        recordDelivery(stream: stream, upTo: upTo, at: now)
        return true
    }

    private func applyRead(stream: UInt64, read: UInt64, on source: any LinkSession) async
        -> Bool
    {
        if await isNotCurrentStream(stream, on: source) {
            guard (try? await services.store.holdsOutgoing(to: key, stream: stream)) == true else {
                logger.debug("READ of stream \(stream), which holds none of our messages, ignored")
                return true
            }
            return await recordRead(stream: stream, upTo: read)
        }
        guard
            let step = await flowStep(
                on: source,
                { flow throws(OutgoingFlow.Violation) in
                    try flow.readReceived(stream: stream, read: read)
                })
        else { return false }
        guard let upTo = step else { return true }
        return await recordRead(stream: stream, upTo: upTo)
    }

    /// A READ of another stream than the flow's: one a restart replaced (the peer was ahead
    /// of it, or our store was restored). The peer still holds that stream's messages, and
    /// its user may read them before our next message makes it adopt the new one. It marks
    /// what we still hold of that stream, outside the flow, which follows the current stream
    /// only; a stream whose messages all moved holds nothing to mark, and it is ignored, not a
    /// violation: §9.5 makes only an ACK for an unknown stream one, and closing would cut an
    /// honest peer off each time its user reads (found by QA).
    private func isNotCurrentStream(_ stream: UInt64, on source: any LinkSession) async -> Bool {
        guard case .some(let current) = await flowStep(on: source, { $0.stream }) else {
            return false
        }
        return current != stream
    }

    private func recordRead(stream: UInt64, upTo: UInt64) async -> Bool {
        do {
            publishStatus(
                try await services.store.markReadByPeer(
                    peer: key, stream: stream, upTo: upTo, at: services.now()))
        } catch {
            logger.error("cannot record a read receipt: \(error)")
        }
        return true
    }

    private func applyReject(
        stream: UInt64, seq: UInt64, reason: RejectReason, on source: any LinkSession
    ) async -> Bool {
        guard
            await flowStep(
                on: source,
                { flow throws(OutgoingFlow.Violation) in
                    try flow.rejectReceived(stream: stream, seq: seq)
                }) != nil
        else { return false }
        logger.notice("the peer rejected message \(seq): \(reason)")
        do {
            if let failed = try await services.store.markFailed(
                peer: key, stream: stream, seq: seq, reason: reason.description)
            {
                publishStatus([failed])
            }
        } catch {
            logger.error("cannot record a rejection: \(error)")
        }
        return true
    }

    func applyPresence(status: AnnouncedStatus, statusText: String) async {
        let now = services.now()
        let before = announced
        do {
            try await services.directory.recordPresence(
                key, status: status.availability, statusText: statusText, at: now)
        } catch {
            logger.error("cannot record presence: \(error)")
        }
        await logIfAnnouncedChanged(from: before, at: now)
    }

    /// What the peer announces of itself: its availability (`available`, `away`, `busy`)
    /// and status text, as the directory shows them.
    private var announced: (status: String, text: String, name: String)? {
        services.directory.entry(key).map {
            ($0.record.status, $0.record.statusText, $0.record.name)
        }
    }

    /// A peer that became away or busy (or available again), changed its status text or
    /// its name, is a `peer.presence` event for `watch`, as coming online or going offline
    /// is. A peer met for the first time comes online here, with its first HELLO, whose
    /// write logged `peer.new` just before; the registry leaves its coming online to this
    /// (found by QA, twice: nameless, then logged twice).
    private func logIfAnnouncedChanged(
        from before: (status: String, text: String, name: String)?, at now: Int64
    ) async {
        guard let after = announced, before.map({ $0 != after }) ?? true else { return }
        do {
            try await services.store.logPresence(
                key, .online(availability: after.status), at: now)
        } catch {
            logger.error("cannot log a presence change: \(error)")
        }
    }

    func publishStatus(_ changed: [StoredMessage]) {
        guard !changed.isEmpty else { return }
        services.events.publish(.statusChanged(peer: key, changed, sent: false))
    }
}

extension AnnouncedStatus {
    /// The control API's name for it (`available`, `away`, `busy`).
    var availability: String {
        switch self {
        case .available: "available"
        case .away: "away"
        case .busy: "busy"
        }
    }
}
