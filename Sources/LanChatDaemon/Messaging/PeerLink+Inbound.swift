import LanChatControl
import LanChatCore
import LanChatStore
import LanChatTransport

/// Receiving on the current session: HELLO (resume), MSG (store, then ACK), ACK, READ,
/// REJECT, PRESENCE. Called by the transport one batch at a time, in wire order.
extension PeerLink {
    func received(_ messages: [AppMessage], on source: SessionHandle) async {
        var index = messages.startIndex
        while index < messages.endIndex {
            guard source === session else { return }
            let message = messages[index]
            if !helloReceived {
                guard case .hello(let hello) = message else {
                    return await protocolViolation("a message before HELLO", on: source)
                }
                helloReceived = true
                await applyHello(hello, on: source)
                index += 1
                continue
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
                await applyPresence(status: status, statusText: statusText)
            case .typing, .unknown:
                break
            }
            index += 1
        }
    }

    // MARK: HELLO

    private func applyHello(_ hello: Hello, on source: SessionHandle) async {
        let now = services.now()
        let endpoint = source.info.role == .initiator ? source.info.remoteAddress : nil
        do {
            try await services.store.recordPeerSeen(
                key, keyTag: keyTag, name: hello.name, status: hello.presence.availability,
                statusText: hello.statusText, endpoint: endpoint, at: now)
        } catch {
            logger.error("cannot record the peer's HELLO: \(error)")
        }
        services.directory.modify(key) { entry in
            entry.record.name = hello.name
            entry.record.status = hello.presence.availability
            entry.record.statusText = hello.statusText
            if let endpoint {
                entry.record.addresses.removeAll { $0 == endpoint }
                entry.record.addresses.insert(endpoint, at: 0)
            }
        }
        warnIfNameBelongsToAnotherKey(hello.name)
        let outgoing: OutgoingStreamState?
        do {
            outgoing = try await services.store.outgoingState(for: key)
        } catch {
            logger.error("cannot read the outbox: \(error)")
            return await source.close(.normal)
        }
        guard source === session, flow != nil else { return }
        let resume = flow?.helloReceived(
            inStream: hello.inStream, inDelivered: hello.inDelivered, inRead: hello.inRead,
            firstUndelivered: outgoing?.firstUndelivered)
        if let resume, let stream = outgoing?.stream,
            resume.deliveredUpTo != nil || resume.readUpTo != nil
        {
            do {
                let changed = try await services.store.applyResume(
                    peer: key, stream: stream, deliveredUpTo: resume.deliveredUpTo,
                    readUpTo: resume.readUpTo, at: now)
                publishStatus(changed)
            } catch {
                logger.error("cannot record the peer's resume point: \(error)")
                return await source.close(.normal)
            }
        }
        if resume?.peerAheadOfStream == true {
            logger.warning(
                "the peer has seen more of our stream than we stored (restored backup?); starting a new stream"
            )
            do {
                let fresh = try await services.store.rotateStream(to: key)
                let state = try await services.store.outgoingState(for: key)
                outboxCache.removeAll()
                flow?.assigned(stream: fresh, upTo: (state?.nextSeq ?? 1) - 1)
            } catch {
                logger.error("cannot start a new stream: \(error)")
                return await source.close(.normal)
            }
        }
        schedulePump()
    }

    /// PROTOCOL.md §3.8 row 7: a key presenting the display name of another pinned peer is
    /// a new, separate peer (never merged); the user is told, once.
    private func warnIfNameBelongsToAnotherKey(_ name: String) {
        guard !warnedNameClash, !name.isEmpty else { return }
        let folded = name.lowercased()
        let others = services.directory.all.filter {
            $0.pinned && $0.key != key && $0.record.name.lowercased() == folded
        }
        guard let other = others.first else { return }
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
    private func accept(_ run: [WireMessage], on source: SessionHandle) async -> Bool {
        await enterInbound()
        defer { leaveInbound() }
        guard source === session, var working = ledger else { return false }
        var records: [IncomingRecord] = []
        var replies: [AppMessage] = []
        var violation: String?
        let now = services.now()
        for var message in run {
            // The sender's clock is its own business, but an absurd one must not reach
            // history: a time no timestamp can show becomes the time we received it.
            if !Timestamp.representable.contains(message.sentAt) { message.sentAt = now }
            switch working.classify(message) {
            case .store:
                if case .valid(let text) = message.text {
                    records.append(IncomingRecord(message: message, text: text))
                }
            case .reject(let reason):
                logger.info("rejecting message \(message.seq): \(reason)")
                replies.append(.reject(stream: message.stream, seq: message.seq, reason: reason))
            case .duplicate:
                break
            case .protocolError(let what):
                violation = what
            }
            if violation != nil { break }
        }
        let cursor = working.cursor
        if cursor != committedCursor {
            do {
                let stored = try await services.store.commitIncoming(
                    from: key, records: records, cursor: cursor, at: now)
                ledger = working
                committedCursor = cursor
                if !stored.isEmpty {
                    services.events.publish(.messagesReceived(peer: key, stored))
                }
            } catch {
                // Nothing of the chunk is stored and nothing is acknowledged: the peer sends
                // it again on the next session.
                logger.error("cannot store received messages, closing the session: \(error)")
                if source === session { resetSession() }
                await source.close(.normal)
                return false
            }
        }
        // REJECTs before the ACK that covers them; the ACK only after the commit.
        replies.append(.ack(stream: committedCursor.stream, delivered: committedCursor.delivered))
        source.sendControl(replies)
        if let violation {
            await protocolViolation(violation, on: source)
            return false
        }
        return true
    }

    func enterInbound() async {
        guard inboundBusy else {
            inboundBusy = true
            return
        }
        await withCheckedContinuation { inboundWaiters.append($0) }
    }

    func leaveInbound() {
        if inboundWaiters.isEmpty {
            inboundBusy = false
        } else {
            inboundWaiters.removeFirst().resume()
        }
    }

    // MARK: ACK, READ, REJECT, PRESENCE

    private func applyAck(stream: UInt64, delivered: UInt64, on source: SessionHandle) async
        -> Bool
    {
        let upTo: UInt64?
        do {
            upTo = try flow?.ackReceived(stream: stream, delivered: delivered) ?? nil
        } catch {
            await protocolViolation(error.description, on: source)
            return false
        }
        guard let upTo else { return true }
        for seq in outboxCache.keys where seq <= upTo { outboxCache[seq] = nil }
        schedulePump()
        let now = services.now()
        services.events.publish(.acknowledged(peer: key, stream: stream, upTo: upTo, at: now))
        recordDelivery(stream: stream, upTo: upTo, at: now)
        return true
    }

    private func applyRead(stream: UInt64, read: UInt64, on source: SessionHandle) async -> Bool {
        let upTo: UInt64?
        do {
            upTo = try flow?.readReceived(stream: stream, read: read) ?? nil
        } catch {
            await protocolViolation(error.description, on: source)
            return false
        }
        guard let upTo else { return true }
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
        stream: UInt64, seq: UInt64, reason: RejectReason, on source: SessionHandle
    ) async -> Bool {
        do {
            try flow?.rejectReceived(stream: stream, seq: seq)
        } catch {
            await protocolViolation(error.description, on: source)
            return false
        }
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

    private func applyPresence(status: AnnouncedStatus, statusText: String) async {
        services.directory.modify(key) { entry in
            entry.record.status = status.availability
            entry.record.statusText = statusText
        }
        do {
            try await services.store.recordPeerSeen(
                key, keyTag: keyTag, name: nil, status: status.availability,
                statusText: statusText, endpoint: nil, at: services.now())
        } catch {
            logger.error("cannot record presence: \(error)")
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
