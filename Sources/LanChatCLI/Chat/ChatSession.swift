import Dispatch
import LanChatClient
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// The client side of `lanchat chat`: the daemon calls of a conversation, shared by the
/// terminal and the line mode. It follows `watch` for the peer (new messages, own statuses,
/// presence, typing), reconnecting and resuming from its last cursor like `lanchat watch`,
/// marks what it shows read (`read`, which sends read receipts), and carries out what the
/// screen asks (`send`, `typing`, older pages).
struct ChatSession {
    let context: CommandContext
    /// The peer's id, or the group's, resolved by the first `history` call.
    let peerID: String
    /// A group conversation: no typing notifications (they are per peer, PROTOCOL.md §9.6),
    /// and the members' presence does not replace the header.
    var isGroup = false
    static let pageSize = 50

    enum Event: Sendable {
        /// The watch (re)started: anything may have happened since the last page was read.
        case started
        case messages([MessageInfo])
        case peer(PeerInfo)
        /// The group as it is after a change (members, name).
        case group(GroupInfo)
        /// A group member as a message of theirs names it now (a rename since the chat
        /// opened; the group's watch carries no peer events).
        case member(PeerInfo)
        case typing(Bool)
        case notice(String?)
        /// Our own daemon went away (false) or answers again (true): what it last said of the
        /// peer's presence is not known to hold meanwhile.
        case daemonReachable(Bool)
    }

    /// Calls `deliver` with every change about the conversation, until cancelled. `since` is
    /// the cursor before the first history was read, so nothing between is missed.
    /// `replayingMissed`: after an outage the watch resumes from its last cursor and replays
    /// what came meanwhile (line mode prints it); else it starts afresh, and the reader
    /// catches up from history on `.started` (the screen, which places each message in
    /// order: a replay came after whatever page it had read meanwhile).
    func follow(
        since: String?, replayingMissed: Bool = true, into events: AsyncStream<Event>.Continuation
    ) async {
        defer { events.finish() }
        let deliver: @Sendable (Event) -> Void = { events.yield($0) }
        var cursor = since
        var troubled = false
        while !Task.isCancelled {
            do {
                for try await update in context.client.watch(
                    WatchParams(peer: peerID, since: cursor))
                {
                    switch update {
                    case .started(let result):
                        if cursor == nil || !replayingMissed { cursor = result.cursor }
                        if troubled {
                            deliver(.notice(nil))
                            deliver(.daemonReachable(true))
                        }
                        troubled = false
                        deliver(.started)
                    case .event(let event):
                        cursor = event.cursor
                        await handle(event, deliver)
                    }
                }
            } catch {
                if Task.isCancelled { return }
                if !troubled {
                    // Stopped or hung: the two have different fixes (found by QA: a stopped
                    // daemon was "not answering").
                    let stopped = (error as? ControlError)?.exitCode == 69
                    deliver(
                        .notice(
                            "lanchatd is " + (stopped ? "not running" : "not answering")
                                + "; reconnecting…"))
                    deliver(.daemonReachable(false))
                    troubled = true
                }
            }
            do {
                try await Task.sleep(for: .seconds(1))
            } catch {
                return
            }
        }
    }

    private func handle(_ event: EventInfo, _ deliver: @Sendable (Event) -> Void) async {
        switch event.type {
        case .messageReceived:
            // Marked read by whoever shows it: the screen once it is in view, line mode
            // once printed.
            guard let message = event.message, isInConversation(message) else { return }
            if isGroup, let sender = event.peer { deliver(.member(sender)) }
            deliver(.messages([message]))
        case .messageStatus:
            if let message = event.message, isInConversation(message) {
                deliver(.messages([message]))
            }
        case .peerPresence, .peerNew:
            if !isGroup, let peer = event.peer { deliver(.peer(peer)) }
        case .peerTyping:
            if !isGroup { deliver(.typing(event.typing ?? false)) }
        case .groupChanged:
            // The header counts the members (found by QA: it kept the count chat opened with).
            if isGroup, let group = event.group { deliver(.group(group)) }
        default:
            break
        }
    }

    /// `watch PEER` follows every event about the peer, its messages in groups too; a chat
    /// shows only its own conversation's (found by QA: a group's messages appeared in the
    /// chat with one of its members, as if said to the user alone).
    private func isInConversation(_ message: MessageInfo) -> Bool {
        isGroup ? message.group == peerID : message.group == nil
    }

    /// Marks read what the reader showed, the messages `from` through `through` (arrival
    /// order): the user has seen them, and nothing else.
    func markRead(from: String?, through: String) async {
        // A failure is not worth a word: the next message marks them again.
        _ = try? await context.client.read(ReadParams(peer: peerID, from: from, through: through))
    }

    /// What came after the message `after`, at most one page of `catchUpLimit`: caught up,
    /// or, when more came or `after` is gone (removed meanwhile), the newest page in place
    /// of what is shown.
    /// Nil when the daemon does not answer (the watch's next start tries again).
    func catchUp(after: String) async -> ChatUpdate? {
        let missed = try? await context.client.history(
            HistoryParams(peer: peerID, limit: Self.catchUpLimit, after: after))
        if let missed, !missed.hasNewer { return .caughtUp(missed.messages, after: after) }
        guard let page = await newestPage() else { return nil }
        return .replaced(page.messages, hasOlder: page.hasOlder)
    }

    /// The most `history` gives in one page.
    static let catchUpLimit = 1000

    /// One line sent; the stored messages, or why the daemon did not take it.
    func sending(_ text: String) async -> Result<[MessageInfo], ControlError> {
        do throws(ControlError) {
            // Checked as `send` checks it: a paste over the limit is told so in its own
            // terms, not as a request line too long for the socket.
            _ = try MessageText.validate(text)
            // Not `idsOnly`, so the answer carries the messages.
            return .success(
                try await context.client.send(SendParams(peer: peerID, text: text)).messages ?? [])
        } catch {
            return .failure(error)
        }
    }

    func typing(_ typing: Bool) async {
        guard !isGroup else { return }
        _ = try? await context.client.typing(TypingParams(peer: peerID, typing: typing))
    }

    /// The newest page read again; nil when the daemon does not answer (the next event, or
    /// the watch's restart, tries again).
    func newestPage() async -> HistoryResult? {
        try? await context.client.history(HistoryParams(peer: peerID, limit: Self.pageSize))
    }

    func older(before id: String) async throws(ControlError) -> HistoryResult {
        try await context.client.history(
            HistoryParams(peer: peerID, limit: Self.pageSize, before: id))
    }
}
