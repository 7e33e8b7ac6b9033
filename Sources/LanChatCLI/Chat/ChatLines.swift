import Dispatch
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// Line mode of `lanchat chat`: each non-empty input line is sent; each incoming message is
/// printed as `HH:MM NAME: TEXT` (one line, terminal-safe) and marked read. Ends at the end
/// of input, once every line was handed to the daemon; a line not sent is reported and the
/// exit code says so, as for `send --lines`.
enum ChatLines {
    static func run(session: ChatSession, peer: PeerInfo, group: GroupInfo?)
        async throws(ControlError)
    {
        let name = truncated(PeerText.nameOrKeyTag(peer), to: 40)
        let conversationGroup = group
        let context = session.context
        // Read and checked as `send --lines` reads them: a line that is too long, not UTF-8
        // or holds a NUL is reported and not sent.
        let lines = LineBatchQueue()
        LineReader.start(fd: context.environment.standardInput, into: lines)
        var outcome = LinesOutcome()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let (events, feeding) = AsyncStream.makeStream(of: ChatSession.Event.self)
                async let following: Void = session.follow(since: nil, into: feeding)
                var shown = Set<String>()
                // What was printed, first and last: marked read, and only that (found by
                // QA: an incoming message marked the whole conversation read, messages from
                // before the chat opened, never printed, included).
                var firstPrinted: String?
                var members = conversationGroup
                var senders = members.map { HistoryView.senderLabels($0, width: 40) } ?? [:]
                for await event in events {
                    if case .member(let member) = event, let renamed = members?.renaming(member) {
                        members = renamed
                        senders = HistoryView.senderLabels(renamed, width: 40)
                    }
                    guard case .messages(let messages) = event else { continue }
                    let new = messages.filter {
                        $0.direction == .incoming && shown.insert($0.id).inserted
                    }
                    for message in new {
                        let sender = message.sender.flatMap { senders[$0] } ?? name
                        context.out(line(message, name: sender, zone: context.zone))
                    }
                    if let last = new.last {
                        firstPrinted = firstPrinted ?? new.first?.id
                        await session.markRead(from: firstPrinted, through: last.id)
                    }
                }
                await following
            }
            outcome = await sendLines(session: session, queue: lines)
            group.cancelAll()
        }
        // As `send --lines`: the daemon's own error first, else 65 for lines refused.
        if let error = outcome.daemonError { throw error }
        if outcome.rejected > 0 {
            throw .badInput(LineSender.refusedLines(outcome.rejected, sent: outcome.sent))
        }
    }

    /// What became of the input lines: how many were refused, and the first error of the
    /// daemon (whose exit code the command ends with).
    struct LinesOutcome {
        var rejected = 0
        var sent = 0
        var daemonError: ControlError?
    }

    /// Sends each good line in order until input ends; reports every line not sent on
    /// standard error (as `lanchat: REASON; not sent`) and goes on with the next.
    static func sendLines(session: ChatSession, queue: LineBatchQueue) async -> LinesOutcome {
        let context = session.context
        var outcome = LinesOutcome()
        while true {
            let batch = await queue.nextBatch(maxBytes: 1 << 20, maxCount: 1)
            if batch.isEmpty { return outcome }
            for item in batch {
                switch item {
                case .message(let number, let text):
                    switch await session.sending(text) {
                    case .success: outcome.sent += 1
                    case .failure(let error):
                        outcome.daemonError = outcome.daemonError ?? error
                        context.err(
                            "lanchat: line \(number): \(terminalSafe(error.message)); not sent\n")
                    }
                case .rejected(_, let reason):
                    outcome.rejected += 1
                    context.err("lanchat: \(reason); not sent\n")
                case .readFailed(let reason):
                    outcome.daemonError =
                        outcome.daemonError ?? .badInput("cannot read standard input: \(reason)")
                    return outcome
                }
            }
        }
    }

    static func line(_ message: MessageInfo, name: String, zone: any UTCOffsetProvider)
        -> String
    {
        let time = SmartTime.clock(LocalDateTime(message.createdAt, in: zone))
        return time + " " + name + ": " + terminalSafe(message.text) + "\n"
    }
}
