import LanChatControl

/// `lanchat send PEER --lines`: streams standard input, one message per non-empty line.
///
/// Lines are read on a dispatch thread (`LineReader`) into a `LineBatchQueue`; this loop
/// takes whatever has arrived, sends it as one `texts` call, prints the ids, and repeats, so
/// a line waits only for the call before it, never for more input.
///
/// A bad line (over 65 536 bytes, not UTF-8) is reported on standard error with its line
/// number and skipped; the good lines around it are still sent, and the command exits 65
/// once input ends. A `--wait` that runs out is reported the same way and the stream goes on
/// (the lines are stored and will be delivered; `journalctl -f | … --wait` must not end at
/// the peer's first absence): exit 75 once input ends. A daemon that goes away once it has
/// answered the first question (`checkPeer`) is waited for, as `lanchat watch` does, and the
/// lines that came meanwhile are sent once it is back (QA: the line in hand was dropped
/// unsaid); a batch cut off on its way is looked for before it is sent again (`send(_:)`).
/// Any other error from the daemon stops at once with its own exit code.
struct LineSender {
    let command: SendCommand
    let context: CommandContext

    /// Batches stay well under the daemon's 1 MiB request limit.
    static let maxBatchBytes = 512 << 10
    static let maxBatchCount = 1000
    /// Copies one batch may make: a group's batch stores a copy of each line per member, in
    /// one transaction, and one of 1 000 lines to 255 members outlasted the call's time
    /// limit (found by QA: taken for a daemon gone away).
    static let maxBatchCopies = 50_000

    /// Lines per batch to a conversation of `members` recipients.
    static func batchCount(members: Int) -> Int {
        max(1, min(maxBatchCount, maxBatchCopies / max(1, members)))
    }

    func run() async throws(ControlError) {
        let members = try await checkPeer()
        let queue = LineBatchQueue()
        LineReader.start(fd: context.environment.standardInput, into: queue)
        var rejected = 0
        var sent = 0
        var timedOut: [ControlError] = []
        /// The held warning is said once per key change, not once per batch.
        var warned: KeyChangeInfo?
        /// The ids of the last batch answered: a batch whose fate a lost connection left open
        /// is looked for among messages stored since it was sent, never among these.
        var lastAnswered: Set<String> = []
        /// One call; a timeout is told and kept for the end, a daemon gone since an earlier
        /// call waited for, anything else thrown. A connection lost with the call on it (the
        /// daemon killed mid-batch) leaves it open whether the batch was stored, all of it or
        /// none (one transaction): once the daemon is back, the batch is looked for in the
        /// conversation and sent again only if it is not there (found by QA: the command
        /// ended with 69 and the rest of the input was lost, and ids went unprinted).
        func send(_ texts: [String]) async throws(ControlError) {
            var backoff = WatchFollower.firstBackoff
            var away = false
            var cutOff = false
            let sentSince = context.now
            while true {
                do {
                    let result: SendResult
                    if cutOff,
                        let stored = try await storedBatch(
                            texts, since: sentSince, excluding: lastAnswered)
                    {
                        command.print(stored, context: context, streaming: true)
                        result = stored
                    } else {
                        result = try await command.send(
                            texts: texts, text: nil, context: context, streaming: true)
                    }
                    lastAnswered = Set(result.ids)
                    sent += texts.count
                    if let keyChange = result.keyChange, keyChange != warned {
                        context.err(SendCommand.heldWarning(keyChange))
                        warned = keyChange
                    }
                    if away { context.err("lanchat: lanchatd is back; sending goes on\n") }
                    return
                } catch  where error.isTimeout {
                    context.err("lanchat: \(terminalSafeError(error.message))\n")
                    timedOut.append(error)
                    return
                } catch  where error.isDaemonUnreachable {
                    // The daemon answered `checkPeer`: gone now, it is waited for (found by
                    // QA: a daemon gone before the first batch was answered ended the command
                    // with 69, stored lines' ids unprinted and the rest of the input dropped).
                    // Refused before it reached a daemon, nothing of the call was done;
                    // otherwise the batch may have been stored.
                    if !error.isDaemonNotRunning { cutOff = true }
                    if !away {
                        // A daemon that only did not answer in time is not said to be gone.
                        let what =
                            error.isNoAnswerInTime
                            ? "lanchatd did not answer in time" : "lanchatd went away"
                        context.err(
                            cutOff
                                ? "lanchat: \(what) with lines on their way; they and "
                                    + "the lines from here on are sent once it answers, each once "
                                    + "(Ctrl-C to stop)\n"
                                : "lanchat: lanchatd is not running; the lines from here on are "
                                    + "sent once it is back (Ctrl-C to stop)\n")
                    }
                    away = true
                    try await Self.pause(&backoff, after: error)
                }
            }
        }
        do throws(ControlError) {
            while true {
                let batch = await queue.nextBatch(
                    maxBytes: Self.maxBatchBytes, maxCount: Self.batchCount(members: members))
                if batch.isEmpty { break }
                var texts: [String] = []
                for item in batch {
                    switch item {
                    case .message(_, let text):
                        texts.append(text)
                    case .rejected(_, let reason):
                        rejected += 1
                        context.err("lanchat: \(reason); not sent\n")
                    case .readFailed(let reason):
                        if !texts.isEmpty { try await send(texts) }
                        throw .badInput(reason)
                    }
                }
                if !texts.isEmpty { try await send(texts) }
            }
        } catch {
            queue.abandon()
            throw error
        }
        if rejected > 0 { throw .badInput(Self.refusedLines(rejected, sent: sent)) }
        if let last = timedOut.last {
            let count = timedOut.compactMap { $0.data?.messageIDs?.count }.reduce(0, +)
            let lines = count == 1 ? "1 line" : "\(count) lines"
            throw .timedOut(
                "\(lines) not seen \(command.waitRead ? "read" : "delivered") in time (ids "
                    + "above); they stay stored and will still be delivered",
                messageIDs: last.data?.messageIDs ?? [])
        }
    }

    /// Asked before the first line, which may come hours later (`journalctl -f |`): a daemon
    /// that is not running or a PEER that names no one fails now (69, 67). A daemon that goes
    /// away before it answers (killed, restarted) is waited for, as later (found by QA: the
    /// command ended with 75 and the input was lost).
    /// Returns how many copies a line makes: a group's members, else one.
    private func checkPeer() async throws(ControlError) -> Int {
        var backoff = WatchFollower.firstBackoff
        var away = false
        while true {
            do {
                let page = try await context.client.history(
                    HistoryParams(peer: command.peer, limit: 1))
                if away { context.err("lanchat: lanchatd is back\n") }
                return page.group?.members.count ?? 1
            } catch  where error.isDaemonUnreachable && (away || !error.isDaemonNotRunning) {
                if !away {
                    context.err(
                        "lanchat: lanchatd went away before it answered; waiting for it "
                            + "(Ctrl-C to stop)\n")
                }
                away = true
                try await Self.pause(&backoff, after: error)
            }
        }
    }

    /// Waits `backoff` before the daemon is tried again, and doubles it for the next time.
    /// Interrupted (Ctrl-C), the command ends with `unreachable`: what waits was not sent.
    private static func pause(_ backoff: inout Duration, after unreachable: ControlError)
        async throws(ControlError)
    {
        do {
            try await Task.sleep(for: backoff)
        } catch {
            throw unreachable
        }
        backoff = min(backoff * 2, WatchFollower.maxBackoff)
    }

    /// The batch `texts`, if the daemon stored it before the connection was lost: the same
    /// texts, in order and in a row, among our own messages to the peer created since the call
    /// was made and not in the batch answered before it. Nil when it is not there. The
    /// conversation is read back page by page until one of our messages older than the call
    /// (found by QA: one page of the newest, which the peer's own messages arriving since the
    /// restart could fill, missed a batch of 1 000 that was then stored and delivered twice).
    func storedBatch(_ texts: [String], since: Timestamp, excluding earlier: Set<String>)
        async throws(ControlError) -> SendResult?
    {
        var own: [MessageInfo] = []
        var before: String?
        for _ in 0..<Self.maxLookupPages {
            let page = try await context.client.history(
                HistoryParams(peer: command.peer, limit: 1000, before: before))
            let outgoing = page.messages.filter { $0.direction == .outgoing }
            own.insert(
                contentsOf: outgoing.filter { $0.createdAt >= since && !earlier.contains($0.id) },
                at: 0)
            let reachedOlder = outgoing.contains { $0.createdAt < since }
            guard !reachedOlder, page.hasOlder, let oldest = page.messages.first else { break }
            before = oldest.id
        }
        guard own.count >= texts.count else { return nil }
        for start in 0...(own.count - texts.count) {
            let run = own[start..<start + texts.count]
            if run.map(\.text).elementsEqual(texts) { return SendResult(messages: Array(run)) }
        }
        return nil
    }

    /// How far back a cut-off batch is looked for: what the daemon stored from the call on,
    /// the peer's messages among it, is a few pages at most.
    static let maxLookupPages = 50

    /// The error a run of lines ends with when some were refused: whether any other was
    /// sent (found by QA: "the other lines were sent" when the one line was refused).
    static func refusedLines(_ rejected: Int, sent: Int) -> String {
        let lines = rejected == 1 ? "1 line was" : "\(rejected) lines were"
        return "\(lines) not sent (see above); "
            + (sent == 0 ? "no line was sent" : "the other lines were sent")
    }
}
