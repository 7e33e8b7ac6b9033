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
/// the peer's first absence): exit 75 once input ends. A daemon that goes away after the
/// first answer (a restart) is waited for, as `lanchat watch` does, and the lines that came
/// meanwhile are sent once it is back: the call was refused before it reached a daemon, so
/// nothing of them was stored (QA: the line in hand was dropped unsaid). Any other error
/// from the daemon stops at once with its own exit code.
struct LineSender {
    let command: SendCommand
    let context: CommandContext

    /// Batches stay well under the daemon's 1 MiB request limit.
    static let maxBatchBytes = 512 << 10
    static let maxBatchCount = 1000

    func run() async throws(ControlError) {
        let queue = LineBatchQueue()
        LineReader.start(fd: context.environment.standardInput, into: queue)
        var rejected = 0
        var timedOut: [ControlError] = []
        var reached = false
        /// The held warning is said once per key change, not once per batch.
        var warned: KeyChangeInfo?
        /// One call; a timeout is told and kept for the end, a daemon gone since an earlier
        /// call waited for, anything else thrown.
        func send(_ texts: [String]) async throws(ControlError) {
            var backoff = WatchFollower.firstBackoff
            var away = false
            while true {
                do {
                    let keyChange = try await command.send(
                        texts: texts, text: nil, context: context, streaming: true)
                    if let keyChange, keyChange != warned {
                        context.err(SendCommand.heldWarning(keyChange))
                        warned = keyChange
                    }
                    reached = true
                    if away { context.err("lanchat: lanchatd is back; sending goes on\n") }
                    return
                } catch  where error.isTimeout {
                    context.err("lanchat: \(error.message)\n")
                    timedOut.append(error)
                    reached = true
                    return
                } catch  where error.isDaemonNotRunning && reached {
                    if !away {
                        context.err(
                            "lanchat: lanchatd is not running; the lines from here on are sent "
                                + "once it is back (Ctrl-C to stop)\n")
                    }
                    away = true
                    let notRunning = error
                    do {
                        try await Task.sleep(for: backoff)
                    } catch {
                        throw notRunning  // interrupted while waiting: the lines were not sent
                    }
                    backoff = min(backoff * 2, WatchFollower.maxBackoff)
                }
            }
        }
        do throws(ControlError) {
            while true {
                let batch = await queue.nextBatch(
                    maxBytes: Self.maxBatchBytes, maxCount: Self.maxBatchCount)
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
        if rejected > 0 {
            let lines = rejected == 1 ? "1 line was" : "\(rejected) lines were"
            throw .badInput("\(lines) not sent (see above); the other lines were sent")
        }
        if let last = timedOut.last {
            let count = timedOut.compactMap { $0.data?.messageIDs?.count }.reduce(0, +)
            let lines = count == 1 ? "1 line" : "\(count) lines"
            throw .timedOut(
                "\(lines) not seen \(command.waitRead ? "read" : "delivered") in time (ids "
                    + "above); they stay stored and will still be delivered",
                messageIDs: last.data?.messageIDs ?? [])
        }
    }
}
