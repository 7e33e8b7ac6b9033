import ArgumentParser
import Dispatch
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// `lanchat chat PEER`: an interactive conversation. On a terminal (stdin and stdout are
/// terminals and TERM is not dumb), the full-screen view of `ChatTerminalLoop`; otherwise
/// line mode: each input line is sent, each incoming message printed as a line, for
/// scripts and `expect`.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Talk with a peer: recent messages, new ones live, an input line.",
        discussion: """
            On a terminal: the conversation with day separators and status marks that update \
            live (… queued, ✓ sent, ✓✓ delivered, ✓✓ read), whether the peer is typing or \
            offline, and an input line. Enter sends; Left/Right, Ctrl-B/Ctrl-F, Home/End, \
            Ctrl-A/Ctrl-E, Backspace, Delete, Ctrl-U, Ctrl-K, Ctrl-W edit; Up/Down go through \
            the lines you sent; PageUp/PageDown scroll; Ctrl-L redraws; /more loads older \
            messages; /quit, Ctrl-D on an empty line or Ctrl-C leaves; Ctrl-Z stops it as a \
            job (fg resumes); //TEXT sends /TEXT. Messages shown are marked read.

            Without a terminal (or with TERM=dumb), line mode: every input line is sent and \
            every incoming message is printed as a line (HH:MM NAME: TEXT) until end of input.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("Who to talk with (see PEER in lanchat --help).", valueName: "peer"),
        completion: .sendTargets)
    var peer: String

    func validate() throws {
        // Accepted and ignored, it looked like a script could read chat as JSON.
        if global.json {
            throw ValidationError(
                "chat has no JSON output; scripts use 'watch --json' and 'send --json'")
        }
    }

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        let context = global.makeContext()
        // Resolves the peer (exit 67 with the candidates) before the screen is touched.
        let first = try await context.client.history(
            HistoryParams(peer: peer, limit: ChatSession.pageSize))
        // For a group, `history` names us as its `peer`; the conversation is the group's.
        let session = ChatSession(
            context: context, peerID: first.group?.id ?? first.peer.id,
            isGroup: first.group != nil)
        let environment = context.environment
        let term = environment.variables["TERM"] ?? ""
        if environment.standardInputIsTerminal && environment.outputIsTerminal && term != "dumb" {
            // On a terminal, line mode is said, not silent (found by QA: a blank screen).
            if term.isEmpty {
                context.err("lanchat: TERM is not set; chat runs in line mode\n")
            } else if try await ChatTerminal.run(session: session, first: first) {
                return
            } else {
                context.err(
                    "lanchat: cannot drive the terminal of type '\(terminalSafe(term))'; "
                        + "chat runs in line mode\n")
            }
        }
        try await ChatLines.run(session: session, peer: first.peer, group: first.group)
    }
}

/// The terminal mode: the screen loop on a thread of its own, the session's calls here.
enum ChatTerminal {
    /// False when the terminal could not be driven (nothing was drawn).
    static func run(session: ChatSession, first: HistoryResult) async throws(ControlError)
        -> Bool
    {
        guard let inbox = ChatInbox() else {
            throw .internalError("cannot create a pipe for the chat screen")
        }
        // Unread messages older than the first page are loaded too (up to a thousand), so
        // the view can open at the first of them and none is marked read unseen. A read
        // incoming message means everything older is read (reads go oldest first); until
        // one is loaded, older pages may hold unread ones, also behind a run of our own
        // (found by QA: five unread under sixty of ours were marked read, never shown).
        var first = first
        while first.hasOlder, first.messages.count < 1000,
            !first.messages.contains(where: { $0.direction == .incoming && $0.read == true }),
            let oldest = first.messages.first,
            let page = try? await session.older(before: oldest.id)
        {
            first.messages = page.messages + first.messages
            first.hasOlder = page.hasOlder
        }
        var screen = ChatScreen(peer: first.peer)
        screen.group = first.group
        if let group = first.group {
            screen.formerMembers = await PeerDirectory.formerMembers(
                in: first.messages, members: [group.id: group], client: session.context.client)
        }
        if first.group == nil, !first.peer.contact {
            screen.isRequest =
                (try? await session.context.client.contacts())?.requests
                .contains { $0.peer.id == first.peer.id } ?? false
        }
        screen.merge(first.messages)
        screen.hasOlder = first.hasOlder
        let (requests, asking) = AsyncStream.makeStream(of: ChatRequest.self)
        let loop = ChatTerminalLoop(
            screen: screen, inbox: inbox, requests: asking, now: session.context.environment.now,
            zone: session.context.zone)
        let signals = session.context.environment.handlesSignals ? StopSignals(inbox) : nil
        defer { signals?.cancel() }
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                let (events, feeding) = AsyncStream.makeStream(of: ChatSession.Event.self)
                // No replay after an outage: the screen reads what it missed in order
                // (`catchUp`), after the newest message it shows.
                async let following: Void = session.follow(
                    since: nil, replayingMissed: false, into: feeding)
                for await event in events {
                    switch event {
                    case .started:
                        // Whatever came between the first page and the watch, or while our
                        // daemon was away: the screen asks for what follows its newest.
                        inbox.post(.watchStarted)
                    case .messages(let messages): inbox.post(.messages(messages))
                    case .peer(let peer): inbox.post(.peer(peer))
                    case .group(let group): inbox.post(.group(group))
                    case .member(let member): inbox.post(.member(member))
                    case .typing(let typing): inbox.post(.typing(typing))
                    case .notice(let notice): inbox.post(.notice(notice))
                    case .daemonReachable(let reachable): inbox.post(.daemonReachable(reachable))
                    }
                }
                await following
                return nil
            }
            // A pending message request's messages are in no event (PRODUCT.md §4: a request
            // announces nothing), so one that came while chat was open is not on screen. The
            // first line sent accepts the request: the page is read again then, so that it is
            // shown before anything after it is marked read (found by QA: it was reported
            // read, never shown).
            let mayBeARequest = first.group == nil && !first.peer.contact
            group.addTask {
                var reloadAfterSend = mayBeARequest
                for await request in requests {
                    switch request {
                    case .send(let text):
                        switch await session.sending(text) {
                        case .success(let sent):
                            inbox.post(.sent(sent))
                            if reloadAfterSend {
                                reloadAfterSend = false
                                inbox.post(.accepted)
                                if let page = await session.newestPage() {
                                    inbox.post(.page(page.messages))
                                }
                            }
                        case .failure(let error):
                            inbox.post(.unsent(text, reason: terminalSafe(error.message)))
                        }
                    case .typing(let typing):
                        await session.typing(typing)
                    case .markRead(let from, let through):
                        await session.markRead(from: from, through: through)
                    case .catchUp(let after):
                        if let after, let caughtUp = await session.catchUp(after: after) {
                            inbox.post(caughtUp)
                        }
                        // The newest page too: the statuses of what is shown, and the peer
                        // as it is now (after our daemon was away, its presence in the
                        // header was the last one heard; found by QA).
                        if let page = await session.newestPage() {
                            inbox.post(.page(page.messages))
                            if page.group == nil { inbox.post(.peer(page.peer)) }
                            if let group = page.group { inbox.post(.group(group)) }
                        }
                    case .more(let before):
                        do {
                            let page = try await session.older(before: before)
                            inbox.post(.older(page.messages, hasOlder: page.hasOlder))
                        } catch {
                            inbox.post(
                                .notice(terminalSafe("cannot load older messages: \(error)")))
                        }
                    }
                }
                return nil
            }
            group.addTask {
                await withCheckedContinuation { continuation in
                    DispatchQueue(label: "lanchat.chat.terminal").async {
                        continuation.resume(returning: loop.run())
                    }
                }
            }
            var drove = true
            while let result = await group.next() {
                if let result {
                    drove = result
                    asking.finish()
                    group.cancelAll()
                }
            }
            return drove
        }
    }
}

/// SIGTERM, SIGHUP and SIGINT end the chat through the screen loop, which restores the
/// terminal on its way out (a handler must not call ncurses itself); SIGWINCH wakes the
/// loop to redraw for the new size.
final class StopSignals {
    private var sources: [any DispatchSourceSignal] = []

    init(_ inbox: ChatInbox) {
        for number in [SIGTERM, SIGHUP, SIGINT, SIGWINCH] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let update: ChatUpdate = number == SIGWINCH ? .resized : .stop
            source.setEventHandler { inbox.post(update) }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}

extension ChatTerminalLoop: @unchecked Sendable {}
// Owned by the one thread that runs it; the task that starts it only waits for the result.
