import Dispatch
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// Line mode of `lanchat chat`: each non-empty input line is sent; each incoming message is
/// printed as `HH:MM NAME: TEXT` (one line, terminal-safe) and marked read. Ends at the end
/// of input, once every line was handed to the daemon.
enum ChatLines {
    static func run(session: ChatSession, peer: PeerInfo, group: GroupInfo?)
        async throws(ControlError)
    {
        let name = truncated(peer.displayName, to: 40)
        let senders = group.map { HistoryView.senderLabels($0, width: 40) } ?? [:]
        let context = session.context
        let lines = StandardInputLines.stream(fd: context.environment.standardInput)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let (events, feeding) = AsyncStream.makeStream(of: ChatSession.Event.self)
                async let following: Void = session.follow(since: nil, into: feeding)
                var shown = Set<String>()
                for await event in events {
                    guard case .messages(let messages) = event else { continue }
                    let new = messages.filter {
                        $0.direction == .incoming && shown.insert($0.id).inserted
                    }
                    for message in new {
                        let sender = message.sender.flatMap { senders[$0] } ?? name
                        context.out(line(message, name: sender, zone: context.zone))
                    }
                    if !new.isEmpty { await session.markRead() }
                }
                await following
            }
            for await line in lines {
                let text = line.trimmingWhitespace
                guard !text.isEmpty else { continue }
                if case .notice(let notice?) = await session.send(text) {
                    context.err("lanchat: \(notice)\n")
                }
            }
            group.cancelAll()
        }
    }

    static func line(_ message: MessageInfo, name: String, zone: any UTCOffsetProvider)
        -> String
    {
        let time = SmartTime.clock(LocalDateTime(message.createdAt, in: zone))
        return time + " " + name + ": " + terminalSafe(message.text) + "\n"
    }
}

/// Standard input as lines, read on a dispatch thread (a blocking read must not hold a
/// Swift-concurrency thread). Invalid UTF-8 is repaired (U+FFFD), as for any message.
enum StandardInputLines {
    static func stream(fd: Int32) -> AsyncStream<String> {
        AsyncStream { continuation in
            DispatchQueue(label: "lanchat.chat.input").async {
                var pending: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(fd, &chunk, chunk.count)
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    pending.append(contentsOf: chunk[0..<count])
                    while let newline = pending.firstIndex(of: 0x0A) {
                        continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                        pending.removeSubrange(...newline)
                    }
                }
                if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
                continuation.finish()
            }
        }
    }
}
