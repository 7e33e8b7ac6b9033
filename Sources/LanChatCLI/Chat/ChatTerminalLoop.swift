import CNcurses
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// What the screen asks the session to do.
enum ChatRequest: Sendable {
    case send(String)
    case typing(Bool)
    case more(before: String)
    /// Incoming messages are on screen: mark read what is loaded, from the first message
    /// through the newest, and nothing beyond (found by QA: the whole conversation was
    /// marked, messages not drawn yet or never loaded included).
    case markRead(from: String?, through: String)
    /// The watch (re)started: read what came after this message (nil: nothing is shown).
    case catchUp(after: String?)
}

/// The terminal side of `lanchat chat`, on a thread of its own (blocking `poll`, and
/// ncurses is not thread-safe): owns the screen model and the line editor, waits for keys
/// and for the session's updates, draws after each. Returns when the user leaves (`/quit`,
/// Ctrl-D on an empty line, Ctrl-C) or a `.stop` update comes (SIGTERM, SIGHUP); the
/// terminal is restored before it returns, whatever the way out.
final class ChatTerminalLoop {
    static let typingInterval: Int64 = 2000

    private var screen: ChatScreen
    private var editor = LineEditor()
    private let inbox: ChatInbox
    private let requests: AsyncStream<ChatRequest>.Continuation
    private let now: @Sendable () -> Timestamp
    private let zone: any UTCOffsetProvider
    /// When TYPING(1) was last asked for; nil while the peer is not told we type.
    private var typingSince: Int64?
    /// Incoming messages arrived while the view was scrolled back, not yet seen: marked read
    /// once the view is back at the newest (PageDown to the end, or Enter).
    private var unseenIncoming = false
    /// The notice says a line was not sent: it stays until a key is pressed, whatever else
    /// comes meanwhile (a reconnecting daemon's notices).
    private var noticeIsUnsent = false
    /// The terminal's size at the last draw.
    private var size = (width: 80, height: 24)

    init(
        screen: ChatScreen, inbox: ChatInbox, requests: AsyncStream<ChatRequest>.Continuation,
        now: @escaping @Sendable () -> Timestamp, zone: any UTCOffsetProvider
    ) {
        self.screen = screen
        self.inbox = inbox
        self.requests = requests
        self.now = now
        self.zone = zone
    }

    /// Runs until the user leaves. False when the terminal could not be driven.
    func run() -> Bool {
        guard let terminal = CursesTerminal() else { return false }
        defer { terminal.end() }
        // Opened on more unread messages than fit: at the first of them, read once the view
        // reaches the newest; else all are in view, and read now.
        if screen.scrollToFirstUnread(
            width: terminal.width, height: terminal.height, now: now(), zone: zone)
        {
            unseenIncoming = true
            screen.notice = Self.newBelow
        } else {
            unseenIncoming = true
            markReadIfSeen()
        }
        var running = true
        while running {
            size = (terminal.width, terminal.height)
            screen.inputStart = screen.inputViewStart(editor, width: terminal.width)
            terminal.draw(
                screen.render(
                    width: terminal.width, height: terminal.height, input: editor, now: now(),
                    zone: zone))
            var descriptors = [
                pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                pollfd(fd: inbox.wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            // A minute at most: the presence line's "last seen 5m ago" moves on.
            let ready = poll(&descriptors, 2, 60_000)
            if ready < 0 && errno != EINTR { break }
            for update in inbox.take() {
                if case .resized = update {
                    terminal.resizeToWindow()
                } else if !apply(update) {
                    running = false
                }
            }
            if descriptors[0].revents & Int16(POLLHUP | POLLERR) != 0
                && descriptors[0].revents & Int16(POLLIN) == 0
            {
                running = false
            }
            // Also after EINTR: a SIGWINCH arrives as KEY_RESIZE.
            for key in terminal.readKeys() where running {
                if key == .suspend {
                    stopTyping()
                    terminal.suspend()
                    continue
                }
                running = handle(key, height: terminal.height)
            }
            // A paste whose end has not come (yet): every key is text until it does, so say
            // so, and how to leave if it never comes.
            if terminal.isPasting {
                screen.notice = Self.pasting
            } else if screen.notice == Self.pasting {
                screen.notice = nil
            }
        }
        if typingSince != nil { requests.yield(.typing(false)) }
        return true
    }

    /// The notice while a paste has not ended.
    static let pasting = "pasting… (keys are text until the paste ends; Ctrl-C leaves)"

    /// The notice while incoming messages wait below a scrolled-back view.
    static let newBelow = "new messages below: PageDown"

    private func apply(_ update: ChatUpdate) -> Bool {
        switch update {
        case .messages(let messages):
            keepingTheView { $0.merge(messages) }
            if messages.contains(where: { $0.direction == .incoming }) { incomingArrived() }
        case .sent(let messages):
            keepingTheView { $0.addSent(messages) }
        case .page(let messages):
            arrived(messages) { $0.mergePage(messages) }
        case .watchStarted:
            requests.yield(.catchUp(after: screen.newestID))
        case .caughtUp(let messages, let anchor):
            arrived(messages) { $0.insert(messages, after: anchor) }
        case .replaced(let messages, let hasOlder):
            screen.replace(with: messages, hasOlder: hasOlder)
            if messages.contains(where: { $0.direction == .incoming }) { incomingArrived() }
        case .older(let messages, let hasOlder):
            screen.prepend(messages, hasOlder: hasOlder)
            screen.scrollToStart(width: size.width, height: size.height, now: now(), zone: zone)
            if messages.isEmpty { screen.notice = "nothing older" }
        case .peer(let peer): screen.peer = peer
        case .group(let group): screen.group = group
        case .member(let member): screen.memberSeen(member)
        case .accepted: screen.isRequest = false
        case .daemonReachable(let reachable):
            screen.daemonAway = !reachable
            // The reason the line was not sent is gone (found by QA: it stayed on screen).
            if reachable, noticeIsUnsent, !editor.text.isEmpty {
                screen.notice = "lanchatd is back: Enter sends the line"
            }
        case .typing(let typing): screen.peerTyping = typing
        case .notice(let notice):
            if !noticeIsUnsent { screen.notice = notice }
        case .unsent(let line, let reason):
            screen.notice = "not sent: " + reason
            noticeIsUnsent = true
            editor.restore(line)
        case .resized: break
        case .stop: return false
        }
        return true
    }

    /// Returns false when the user leaves.
    private func handle(_ key: ChatKey, height: Int) -> Bool {
        let page = max(1, height - 4)
        switch key {
        case .pageUp:
            // Kept within the rows there are by `render`; clamp here so PageDown answers.
            let rows = screen.conversationRows(width: size.width, now: now(), zone: zone).count
            screen.scrollBack = min(screen.scrollBack + page, max(0, rows - page))
        case .pageDown:
            screen.scrollBack = max(0, screen.scrollBack - page)
        case .enter:
            // A message sent, or Enter on an empty line, goes to the newest; a command keeps
            // the view where it is (found by QA: `/more` jumped to the newest messages).
            if !Self.isCommand(editor.text) { screen.scrollBack = 0 }
        default:
            break
        }
        let action = editor.apply(key)
        markReadIfSeen()
        if key != .resize {
            screen.notice = nil
            noticeIsUnsent = false
            // Until the view reaches the newest (found by QA: any key took the hint away).
            if unseenIncoming { screen.notice = Self.newBelow }
        }
        switch action {
        case .none, .redraw:
            if action == .redraw { clearok(lanchat_stdscr(), true) }
            return true
        case .quit:
            return false
        case .edited:
            typingChanged()
            return true
        case .submit(let line):
            stopTyping()
            return submit(line)
        }
    }

    private func submit(_ line: String) -> Bool {
        // "//…" is a message that starts with "/" (a path, say): one slash less is sent.
        if line.hasPrefix("//") {
            requests.yield(.send(String(line.dropFirst())))
            return true
        }
        guard line.hasPrefix("/") else {
            requests.yield(.send(line))
            return true
        }
        switch line.lowercased() {
        case "/quit", "/q", "/exit":
            return false
        case "/more":
            if let oldest = screen.oldestID, screen.hasOlder {
                requests.yield(.more(before: oldest))
            } else {
                // Shown, not only said (found by QA: the view stayed at the newest).
                screen.scrollToStart(
                    width: size.width, height: size.height, now: now(), zone: zone)
                screen.notice = "nothing older: this is the start of the conversation"
            }
        default:
            // Kept, not lost: perhaps a message meant to start with "/".
            editor.restore(line)
            screen.notice =
                "unknown command \(truncated(line, to: 20)) (/more, /quit; //TEXT sends /TEXT)"
        }
        return true
    }

    /// `change` applied to the screen, with `incomingArrived` when it showed an incoming
    /// message not shown before.
    private func arrived(_ messages: [MessageInfo], _ change: (inout ChatScreen) -> Void) {
        let known = Set(screen.messages.map(\.id))
        keepingTheView(change)
        if messages.contains(where: { $0.direction == .incoming && !known.contains($0.id) }) {
            incomingArrived()
        }
    }

    /// `change` applied to the screen; a scrolled-back view stays on the rows it shows as
    /// rows are added below them (found by QA: the text being read moved up with each
    /// message that arrived).
    private func keepingTheView(_ change: (inout ChatScreen) -> Void) {
        guard screen.scrollBack > 0 else { return change(&screen) }
        let rows = { (screen: ChatScreen) in
            screen.conversationRows(width: self.size.width, now: self.now(), zone: self.zone)
                .count
        }
        let before = rows(screen)
        change(&screen)
        screen.scrollBack = max(0, screen.scrollBack + rows(screen) - before)
    }

    /// An incoming message is on the screen: read at once when the newest are in view, else
    /// announced below the scrolled-back view.
    private func incomingArrived() {
        unseenIncoming = true
        markReadIfSeen()
        if unseenIncoming, !noticeIsUnsent { screen.notice = Self.newBelow }
    }

    /// TYPING(1) at most every 2 s while the line has text; TYPING(0) when it is cleared.
    /// "Messages shown are marked read": only while the newest are in view.
    private func markReadIfSeen() {
        guard unseenIncoming, screen.scrollBack == 0, let newest = screen.newestID else { return }
        unseenIncoming = false
        requests.yield(.markRead(from: screen.oldestID, through: newest))
    }

    /// A line that is a command to chat (`/more`), not a message (`//TEXT` is one). Asked on
    /// every key: it reads the line's start only (a pasted megabyte is not copied per key).
    static func isCommand(_ line: [Character]) -> Bool {
        guard let start = line.firstIndex(where: { !$0.isWhitespace }) else { return false }
        return line[start] == "/" && (start + 1 == line.count || line[start + 1] != "/")
    }

    private func typingChanged() {
        // A command being typed is not a message being written (found by QA: `/mo` told
        // the peer "typing").
        guard !editor.text.isEmpty, !Self.isCommand(editor.text) else { return stopTyping() }
        let time = now().millisecondsSince1970
        if let since = typingSince, time - since < Self.typingInterval { return }
        typingSince = time
        requests.yield(.typing(true))
    }

    private func stopTyping() {
        guard typingSince != nil else { return }
        typingSince = nil
        requests.yield(.typing(false))
    }
}
