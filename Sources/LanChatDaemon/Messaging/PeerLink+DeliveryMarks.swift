import LanChatCore

/// Recording the peer's ACKs as `delivered` in the store, off the inbound path.
///
/// The ACK itself is acted on at once (the window opens, the pump runs, `send --wait`
/// answers on `.acknowledged`); writing `delivered` is bookkeeping the peer's HELLO can
/// restore. Awaited inline, that write queued behind a `send` holding the store's single
/// writer (a batch of 1 000 takes milliseconds), and every later ACK of the session waited
/// with it. So marks go to the link's writer loop, which coalesces them: marks are
/// cumulative, so per stream one mark is written per round, in one transaction, with a step
/// per millisecond in which ACKs came (each message gets its own ACK's time). A mark
/// stays in `deliveryMarks` until it is in the store, and the control API lays it over store
/// rows meanwhile (`liveOutgoingState`). A mark the store refuses (a full disk) is kept and
/// written again a second later. When the link stops, the loop writes what it holds before
/// it returns.
///
/// After a mark arrives the loop waits `markCoalescing` before writing, so the ACKs of a busy
/// stream share one write. Written at once, each mark took the store's single writer just
/// when the client's next `send` wanted it: one-at-a-time sends waited ~0.2 ms for it (the
/// trace in docs/benchmarks.md). Only the event log's `message.delivered` waits with it.
extension PeerLink {
    static let markCoalescing: Duration = .milliseconds(20)
    /// How long a mark the store refused (a full disk) waits before it is written again.
    static let markRetry: Duration = .seconds(1)

    func recordDelivery(stream: UInt64, upTo: UInt64, at now: Int64) {
        if var mark = deliveryMarks[stream] {
            // An ACK that covers nothing new (a repeat, a HELLO's resume point) changes nothing.
            // A mark being written keeps its steps, so views keep their times meanwhile; the
            // next round writes them again, which changes no row twice.
            guard mark.add(upTo: upTo, at: now) else { return }
            mark.taken = false
            deliveryMarks[stream] = mark
        } else {
            deliveryMarks[stream] = DeliveryMark(upTo: upTo, at: now)
        }
        marksWakeup.signal()
    }

    func runDeliveryMarks() async {
        while true {
            let refused = await writeDeliveryMarks()
            if shouldStop { return }
            // Between rounds: what stayed in flight is logged `sent` (`PeerLink+SentReports`).
            let nextLook = await reportSent()
            if refused {
                // Kept and tried again: on a session that stays up, no later ACK may come
                // to cover these messages, which stayed queued for good (found by QA).
                await stopWakeup.wait(
                    until: services.clock.monotonic() + Self.markRetry, clock: services.clock)
                continue
            }
            await marksWakeup.wait(
                until: nextLook.map { services.clock.monotonic() + $0 }, clock: services.clock)
            if !shouldStop {
                await stopWakeup.wait(
                    until: services.clock.monotonic() + Self.markCoalescing,
                    clock: services.clock)
            }
        }
    }

    /// Writes every mark not yet taken; returns whether the store refused one (kept, to be
    /// written again).
    private func writeDeliveryMarks() async -> Bool {
        var refused: [UInt64] = []
        while let (stream, mark) = deliveryMarks.first(where: { !$0.value.taken }) {
            deliveryMarks[stream]?.taken = true
            do {
                // The changed rows are only for listeners; with none, the update alone is
                // much cheaper.
                if services.events.isFollowed(.statusChanged) {
                    publishStatus(
                        try await services.store.markDelivered(
                            peer: key, stream: stream, steps: mark.steps))
                } else {
                    _ = try await services.store.recordDelivered(
                        peer: key, stream: stream, steps: mark.steps)
                }
            } catch {
                // The peer has the messages: the mark stays (views still lay it over the
                // rows) and is written again; if the link stops first, the peer's next HELLO
                // says what it holds.
                if !deliveryMarksRefused {
                    logger.error("cannot record delivery, trying again every second: \(error)")
                }
                deliveryMarksRefused = true
                refused.append(stream)
                continue
            }
            if deliveryMarksRefused {
                deliveryMarksRefused = false
                logger.notice("delivery recorded again")
            }
            // Written: forget it, unless a newer ACK replaced it meanwhile.
            if deliveryMarks[stream]?.taken == true { deliveryMarks[stream] = nil }
        }
        for stream in refused { deliveryMarks[stream]?.taken = false }
        return !refused.isEmpty
    }
}
