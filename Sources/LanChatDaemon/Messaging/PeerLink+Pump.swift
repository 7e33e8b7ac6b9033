import LanChatCore
import LanChatStore

/// Writing our stream to the session: in seq order, at most `Limits.maxInFlight` ahead of
/// the peer's ACKs, in batches of up to 256 messages per write. One loop per link, woken by
/// `pumpWakeup` whenever something may have become sendable (a commit, an ACK, a resume), so
/// whoever signals never waits on the network.
extension PeerLink {
    func runPump() async {
        while !shouldStop {
            await pumpWhileSendable()
            await pumpWakeup.wait(until: nil)
        }
    }

    /// Writes batches until nothing is sendable, the session changes, or a write fails.
    private func pumpWhileSendable() async {
        var restarted = false
        while !shouldStop {
            guard let (current, flow) = phase.established, let stream = flow.stream,
                let range = flow.sendable
            else { return }
            let last = min(range.upperBound, range.lowerBound + UInt64(Self.maxBatch) - 1)
            var batch: [StoredMessage] = []
            var seq = range.lowerBound
            while seq <= last, let cached = outboxCache[seq], cached.stream == stream {
                batch.append(cached)
                seq += 1
            }
            if seq <= last {
                let fetched: [StoredMessage]
                do {
                    fetched = try await services.store.outgoing(
                        to: key, stream: stream, from: seq, limit: Int(last - seq + 1))
                } catch {
                    logger.error("cannot read the outbox: \(error)")
                    return
                }
                // The world may have moved during the read: start over if so.
                guard phase.isCurrent(current), phase.flow?.nextToSend == range.lowerBound else {
                    continue
                }
                batch += fetched
            }
            let contiguous = Self.contiguousPrefix(of: batch, from: range.lowerBound)
            guard let lastSent = contiguous.last else {
                // A hole where the peer resumes: a message re-queued (`retry`) or purged
                // (`forget --purge`) left it, and the peer's cursor went back past it (its
                // store restored). Waiting would never fill it (found by review: nothing
                // queued to the peer went out again, on any later session either).
                guard !restarted else {
                    logger.error("outbox has no message \(range.lowerBound) of its stream")
                    return
                }
                logger.warning(
                    "our stream has no message \(range.lowerBound), where the peer resumes (its store restored?); starting a new stream"
                )
                restarted = true
                guard await startNewStream(on: current, resending: range.lowerBound) else {
                    return
                }
                continue
            }
            // A group message never goes to a peer that did not announce groups (§9.7).
            // Copies for a peer known not to support them are failed when stored; this holds
            // a copy queued before the peer's daemon was downgraded, rather than send it.
            if !sessionSupportsGroups, contiguous.contains(where: { $0.group != nil }) {
                logger.error(
                    "a queued group message waits: this peer's daemon does not support groups")
                return
            }
            phase.updateFlow(on: current) { $0.didSend(upTo: lastSent.seq) }
            wroteMessages()
            services.events.publish(.statusChanged(peer: key, contiguous, sent: true))
            do {
                try await current.send(contiguous.map(Self.wireMessage))
            } catch {
                // The session is going away; its end resets the flow.
                return
            }
        }
    }

    /// The leading messages whose seqs run on from `first` without a hole.
    static func contiguousPrefix(of messages: [StoredMessage], from first: UInt64)
        -> [StoredMessage]
    {
        var result: [StoredMessage] = []
        for (offset, message) in messages.enumerated() {
            guard message.seq == first + UInt64(offset) else { break }
            result.append(message)
        }
        return result
    }

    static func wireMessage(_ message: StoredMessage) -> AppMessage {
        .message(
            WireMessage(
                stream: message.stream, seq: message.seq, id: message.id,
                sentAt: message.createdAt, group: message.group?.bytes, text: message.text))
    }
}
