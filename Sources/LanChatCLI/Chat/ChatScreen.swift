import LanChatControl

/// What `lanchat chat` shows, as pure state → rows of text, so it is tested without a
/// terminal. The terminal driver draws the rows and puts the cursor where `render` says.
///
/// Layout, top to bottom: a header (name, key tag, presence); the conversation, bottom
/// aligned, with day separators, own status marks and long messages wrapped under their
/// text; the presence line ("bob is typing…", "offline, last seen 5m ago — messages will
/// be delivered when bob is back", or a notice); the input line.
package struct ChatScreen {
    package var peer: PeerInfo {
        // An offline peer types no more: its TYPING(0) may never come (found by QA: "bob is
        // typing…" under "offline").
        didSet { if peer.presence != .online { peerTyping = false } }
    }
    /// Set in a group conversation: the header names the group, incoming messages their
    /// senders (`senders`, by peer id), and there is no presence line of one peer.
    package var group: GroupInfo? {
        didSet { updateSenders() }
    }
    /// Senders of the messages shown who are no longer members (found by QA: labelled with
    /// our own name, the fallback of a 1:1 chat).
    package var formerMembers: [String: PeerInfo] = [:] {
        didSet { updateSenders() }
    }
    private var senders: [String: String] = [:]

    /// A member as its newest message names it: labelled by the name it has now (found by
    /// QA: a member renamed while the chat was open kept its old name).
    package mutating func memberSeen(_ member: PeerInfo) {
        guard let group, let renamed = group.renaming(member) else { return }
        self.group = renamed
    }

    /// The members' labels, and those of anyone who was one while the chat was open (a
    /// member removed meanwhile keeps its name on what it wrote).
    private mutating func updateSenders() {
        guard let group else {
            senders = [:]
            return
        }
        senders = HistoryView.senderLabels(group, width: 16, former: formerMembers)
            .merging(senders) { current, _ in current }
    }
    /// Oldest first; own messages' statuses replaced as `message.status` events arrive.
    package private(set) var messages: [MessageInfo] = []
    package var hasOlder = false
    package var peerTyping = false
    /// The conversation is the peer's pending message request (`--accept contacts`): the
    /// presence line says how it is accepted, until the first line sent does it.
    package var isRequest = false
    /// A passing note (an error, "nothing older"); shown on the presence line.
    package var notice: String?
    /// Our own daemon is away: the header does not repeat the peer's last presence as if it
    /// still held (found by QA: "offline" while it was our daemon that had stopped).
    package var daemonAway = false
    /// Rows scrolled back from the newest (PageUp/PageDown, `/more`); 0 follows new ones.
    package var scrollBack = 0
    /// Where the input line's view began at the last drawing (`inputViewStart`).
    package var inputStart = 0

    package init(peer: PeerInfo) {
        self.peer = peer
    }

    /// New messages, or new states of shown ones (by id).
    /// An own group message's `message.status` event is one member's copy: it updates that
    /// member's entry, and the message shows the least advanced again, as `history` does
    /// (found by QA: one member's "read" showed as the whole message's).
    package mutating func merge(_ incoming: [MessageInfo]) {
        for message in incoming {
            if let index = messages.lastIndex(where: { $0.id == message.id }) {
                if Self.isGroupCopy(message, of: messages[index]) {
                    messages[index] = Self.overlay(message, onto: messages[index])
                    continue
                }
                messages[index] = message
            } else if !Self.isOutOfView(message, oldestShown: messages.first, hasOlder: hasOlder) {
                messages.append(message)
                if message.direction == .incoming { peerTyping = false }
            }
        }
    }

    /// A status change of an own message older than the first one shown, while older ones
    /// are not loaded: it is out of view, and `/more` shows it in its place with its status
    /// (found by QA: a read receipt for an old message moved it to the bottom, for good).
    /// Received messages are new whatever their sender's clock says, so they always come in.
    static func isOutOfView(_ message: MessageInfo, oldestShown: MessageInfo?, hasOlder: Bool)
        -> Bool
    {
        guard hasOlder, message.direction == .outgoing, let oldestShown else { return false }
        if message.createdAt != oldestShown.createdAt {
            return message.createdAt < oldestShown.createdAt
        }
        // One `send --lines` batch shares its time (found by QA: its older lines, out of
        // view, came in at the bottom when read): within it, the stream's order decides.
        return oldestShown.direction == .outgoing && oldestShown.group == message.group
            && oldestShown.peer == message.peer && message.seq < oldestShown.seq
    }

    /// The `send` answer for a line: its messages are added unless shown already. An answer
    /// is the state at the send, and the watch's `message.status` events can come first on
    /// their own connection: merged, the answer's `sent` overwrote a `delivered` already
    /// shown, and the mark stayed ✓ (seen in a full test run on a loaded machine).
    package mutating func addSent(_ answered: [MessageInfo]) {
        for message in answered {
            // A group message's copies can report before the send's answer comes (found by
            // QA: shown as "1/1" of a group of three, and "read" once that one member read
            // it): the answer, with every member, takes their place, and what they said,
            // which is newer than the answer, is laid over it.
            if let index = messages.lastIndex(where: { $0.id == message.id }) {
                if message.group != nil, message.direction == .outgoing,
                    let reported = messages[index].recipients
                {
                    var whole = message
                    for member in reported {
                        var copy = messages[index]
                        copy.recipients = [member]
                        whole = Self.overlay(copy, onto: whole)
                    }
                    messages[index] = whole
                }
                continue
            }
            merge([message])
        }
    }

    /// A `message.status` event of one member's copy of an own group message shown (it has
    /// fewer members than shown, one or none from an older daemon, or one not shown yet),
    /// where a whole message (the send's answer, a page read again) has them all.
    static func isGroupCopy(_ message: MessageInfo, of shown: MessageInfo) -> Bool {
        guard message.group != nil, message.direction == .outgoing,
            let members = shown.recipients
        else { return false }
        let theirs = message.recipients ?? []
        if theirs.count < members.count { return true }
        return theirs.count == 1 && !members.contains { $0.peer == theirs[0].peer }
    }

    /// `copy`'s member laid over `shown`: it replaces that member's entry, or joins them.
    static func overlay(_ copy: MessageInfo, onto shown: MessageInfo) -> MessageInfo {
        var result = shown
        if !result.applyCopy(copy), let member = copy.recipients?.first {
            result.recipients = (result.recipients ?? []) + [member]
            result.settleFromRecipients()
        }
        return result
    }

    /// The newest page read again (after the watch restarted, or a request was accepted):
    /// what it holds takes its place in its order, a message missed meanwhile included, where
    /// `merge` would put a missed one after newer ones. What is shown before the page stays
    /// before it, what came after it was read stays after it.
    package mutating func mergePage(_ page: [MessageInfo]) {
        let inPage = Set(page.map(\.id))
        let firstInPage = messages.firstIndex { inPage.contains($0.id) } ?? messages.count
        let before = messages[..<firstInPage].filter { !inPage.contains($0.id) }
        let after = messages[firstInPage...].filter { !inPage.contains($0.id) }
        messages = before + page + after
    }

    /// What came after `anchor` (the newest shown when it was asked for), in arrival order:
    /// put right after it, ahead of anything shown after it meanwhile (which the page holds,
    /// or which came later). Found by QA: after our daemon restarted, the watch's replay put
    /// the messages missed meanwhile after the newest page, out of order and out of view.
    package mutating func insert(_ page: [MessageInfo], after anchor: String) {
        let inPage = Set(page.map(\.id))
        let end = messages.lastIndex { $0.id == anchor }.map { $0 + 1 } ?? messages.count
        let before = messages[..<end].filter { !inPage.contains($0.id) }
        let after = messages[end...].filter { !inPage.contains($0.id) }
        messages = before + page + after
    }

    /// The newest page in place of everything shown: more was missed than one catch-up
    /// takes, so what is shown would not join it without a gap (`/more` reads older pages).
    package mutating func replace(with page: [MessageInfo], hasOlder: Bool) {
        messages = page
        self.hasOlder = hasOlder
        scrollBack = 0
    }

    /// An older page (`/more`), put before what is shown.
    package mutating func prepend(_ older: [MessageInfo], hasOlder: Bool) {
        let known = Set(messages.map(\.id))
        messages = older.filter { !known.contains($0.id) } + messages
        self.hasOlder = hasOlder
    }

    /// Scrolls so the conversation's first row is at the top of a view of `height` rows.
    package mutating func scrollToStart(
        width: Int, height: Int, now: Timestamp, zone: any UTCOffsetProvider
    ) {
        let rows = conversationRows(width: max(width, 10), now: now, zone: zone).count
        scrollBack = max(0, rows - max(height, 4) + 3)
    }

    package var oldestID: String? { messages.first?.id }
    package var newestID: String? { messages.last?.id }

    package struct Rendered: Equatable {
        package var rows: [String]
        /// Where the terminal cursor goes: in the input line.
        package var cursorRow: Int
        package var cursorColumn: Int
    }

    package func render(
        width: Int, height: Int, input: LineEditor, now: Timestamp, zone: any UTCOffsetProvider
    ) -> Rendered {
        let width = max(width, 10)
        let header = fit(
            group.map {
                "#" + terminalSafe($0.name) + "  " + GroupText.memberCount($0.members.count)
            }
                ?? PeerText.nameWithAlias(peer) + "  " + peer.keyTag + "  "
                + (daemonAway ? "presence unknown" : PeerText.presence(peer, style: .plain).0),
            width)
        let (inputRow, cursorColumn) = inputRow(input, width: width)
        // Too short for all four parts: the line being typed first, then what fits above it
        // (found by QA: at 3 rows it was not drawn at all).
        guard height >= 4 else {
            let newest = conversationRows(width: width, now: now, zone: zone).last.map {
                fit($0, width)
            }
            let above = height >= 3 ? [header, newest ?? ""] : height == 2 ? [newest ?? ""] : []
            return Rendered(
                rows: above + [inputRow], cursorRow: above.count, cursorColumn: cursorColumn)
        }
        let conversationHeight = height - 3
        var body = conversationRows(width: width, now: now, zone: zone).map { fit($0, width) }
        if body.count > conversationHeight {
            let back = min(scrollBack, body.count - conversationHeight)
            body = Array(body[(body.count - conversationHeight - back)..<(body.count - back)])
        } else {
            body = Array(repeating: "", count: conversationHeight - body.count) + body
        }
        return Rendered(
            rows: [header] + body + [
                fit(presenceLine(now: now, zone: zone, width: width), width), inputRow,
            ],
            cursorRow: height - 1, cursorColumn: cursorColumn)
    }

    static let prompt = "> "
    /// One column, as a line break's own width (`DisplayWidth.of("\n")`).
    static let lineBreakMark: Character = "↵"

    /// Where the input line's view begins: where it began last (`inputStart`), moved only as
    /// far as the cursor needs to stay in view, and back while the line's end leaves room
    /// (found by QA, twice: the text scrolled under a cursor kept at one column, first at
    /// the right edge, then in the middle). Each walk goes back at most a screen's width,
    /// never over the whole line (a pasted line of 70 000 characters, measured again on
    /// every key, stopped chat answering).
    package func inputViewStart(_ input: LineEditor, width: Int) -> Int {
        let room = max(width, 10) - DisplayWidth.of(Self.prompt) - 1
        var start = min(inputStart, input.cursor)
        start = max(start, Self.start(of: input.text, before: input.cursor, within: room))
        return min(start, Self.start(of: input.text, before: input.text.count, within: room))
    }

    /// The input line scrolled so the cursor stays in view, and the cursor's column.
    private func inputRow(_ input: LineEditor, width: Int) -> (String, Int) {
        let room = width - DisplayWidth.of(Self.prompt) - 1
        let start = inputViewStart(input, width: width)
        let beforeCursor = input.text[start..<input.cursor].reduce(0) {
            $0 + DisplayWidth.of($1)
        }
        var shown: [Character] = []
        var used = 0
        for character in input.text[start...] {
            let columns = DisplayWidth.of(character)
            if used + columns > room + 1 { break }
            // A pasted line break (`ChatKeyStream`) is part of the message: shown as ↵.
            shown.append(character == "\n" ? Self.lineBreakMark : character)
            used += columns
        }
        return (
            Self.prompt + terminalSafe(String(shown)), DisplayWidth.of(Self.prompt) + beforeCursor
        )
    }

    /// Where a run of `text` that ends before `end` and fits in `columns` begins.
    private static func start(of text: [Character], before end: Int, within columns: Int) -> Int {
        var start = end
        var used = 0
        while start > 0 {
            let width = DisplayWidth.of(text[start - 1])
            if used + width > columns { break }
            used += width
            start -= 1
        }
        return start
    }

    /// The presence line in at most `width` columns when a shorter wording fits (found by
    /// QA: at 60 columns the offline line lost its end).
    package func presenceLine(now: Timestamp, zone: any UTCOffsetProvider, width: Int = .max)
        -> String
    {
        if let notice { return notice }
        guard group == nil else { return "" }
        let name = truncated(PeerText.nameOrKeyTag(peer), to: 40)
        if peerTyping { return "\(name) is typing…" }
        if isRequest {
            return "message request from \(name): your reply accepts it"
        }
        if peer.trust == .blocked {
            // Nothing goes either way (found by QA: "messages will be delivered when … is
            // back" of a blocked peer).
            let wordings = [
                "\(name) is blocked: nothing is sent or taken — lanchat unblock to talk again",
                "\(name) is blocked", "blocked",
            ]
            return wordings.first { DisplayWidth.of($0) <= width } ?? wordings[2]
        }
        switch peer.presence {
        case .online:
            return peer.statusText.isEmpty ? "" : "\(name): " + truncated(peer.statusText, to: 60)
        case .offline, .discovering:
            let seen =
                peer.lastSeen.map { ", last seen " + Self.ago($0, now: now, zone: zone) } ?? ""
            let wordings = [
                "offline\(seen) — messages will be delivered when \(name) is back",
                "offline\(seen) — delivered when back", "offline\(seen)",
            ]
            return wordings.first { DisplayWidth.of($0) <= width } ?? wordings[2]
        }
    }

    /// `5m ago`, `2h ago`, `just now`, `Yesterday`.
    static func ago(_ time: Timestamp, now: Timestamp, zone: any UTCOffsetProvider) -> String {
        let text = SmartTime.format(time, now: now, zone: zone)
        switch text {
        case "now": return "just now"
        case let relative where relative.last == "m" || relative.last == "h":
            return relative + " ago"
        default: return text
        }
    }

    /// Every row of the conversation, oldest first.
    package func conversationRows(width: Int, now: Timestamp, zone: any UTCOffsetProvider)
        -> [String]
    {
        layout(width: width, now: now, zone: zone).rows
    }

    /// Scrolls back so the first unread incoming message is at the top of a view of `height`
    /// rows, when it would be above the view: "messages shown are marked read", so a chat
    /// opened on more unread messages than fit starts at the first of them (found by QA:
    /// all were marked read, most never shown). True when it scrolled: the caller marks
    /// the conversation read only once the view reaches the newest.
    package mutating func scrollToFirstUnread(
        width: Int, height: Int, now: Timestamp, zone: any UTCOffsetProvider
    ) -> Bool {
        guard
            let first = messages.firstIndex(where: {
                $0.direction == .incoming && $0.read == false
            })
        else { return false }
        let (rows, starts) = layout(width: max(width, 10), now: now, zone: zone)
        let conversationHeight = max(height, 4) - 3
        // One row above it for context (its day separator, or the message before).
        let top = max(0, starts[first] - 1)
        guard top < rows.count - conversationHeight else { return false }
        scrollBack = rows.count - conversationHeight - top
        return true
    }

    /// Fewer columns than this beside the time and name, and a message's text goes below.
    static let narrowestText = 20

    /// The conversation's rows, oldest first, and the row each message starts on.
    private func layout(width: Int, now: Timestamp, zone: any UTCOffsetProvider)
        -> (rows: [String], starts: [Int])
    {
        var starts: [Int] = []
        var rows: [String] = []
        rows.append(
            hasOlder
                ? "(older messages: /more)"
                : messages.isEmpty
                    ? "No messages yet: write one below."
                    : "(this is the start of the conversation)")
        let today = LocalDateTime(now, in: zone)
        let theirs = truncated(PeerText.nameOrKeyTag(peer), to: 16)
        let labelWidth =
            ([theirs, HistoryView.ownLabel] + senders.values).map(DisplayWidth.of)
            .max() ?? 0
        var day: Int?
        for message in messages {
            let local = LocalDateTime(message.createdAt, in: zone)
            if local.dayNumber != day {
                day = local.dayNumber
                rows.append("── \(SmartTime.dayHeading(local, today: today)) ──")
            }
            // In a group, `peer` is ourselves: a sender not known is "?", as in `history`.
            let label =
                message.direction == .outgoing
                ? HistoryView.ownLabel
                : message.sender.flatMap { senders[$0] } ?? (group == nil ? theirs : "?")
            let prefix =
                SmartTime.clock(local) + "  " + label
                + String(repeating: " ", count: labelWidth - DisplayWidth.of(label)) + "  "
            let indent = String(repeating: " ", count: DisplayWidth.of(prefix))
            let text = HistoryView.displayable(message.text)
            // The mark goes after the text as one piece, on the text's last row when it fits
            // there, else on a row of its own (found by QA: "✓✓" ended one row and "read"
            // began the next; and one column too far in when the text filled its row).
            let mark =
                message.direction == .outgoing
                ? HistoryView.statusMark(message, style: .plain) : nil
            starts.append(rows.count)
            // Too narrow to write beside the time and name (found by QA: 8 columns of text
            // at 20): the text goes below them, indented by two.
            let beside = width - DisplayWidth.of(prefix) >= Self.narrowestText
            if !beside { rows.append(String(prefix.dropLast(2))) }
            let (lead, room) =
                beside ? (indent, width - DisplayWidth.of(prefix)) : ("  ", width - 2)
            var pieces = text.split(separator: "\n", omittingEmptySubsequences: false)
                .flatMap { DisplayWidth.wrap(DisplayWidth.expandingTabs($0), width: room) }
            if let mark, let last = pieces.last {
                if DisplayWidth.of(last) + 2 + DisplayWidth.of(mark) <= room {
                    pieces[pieces.count - 1] = last + "  " + mark
                } else {
                    pieces.append(mark)
                }
            }
            for (index, piece) in pieces.enumerated() {
                rows.append((index == 0 && beside ? prefix : lead) + piece)
            }
        }
        return (rows, starts)
    }

    /// Cut to `width` columns, ending in "…" when something was cut (found by QA: a long
    /// error stopped mid-word with nothing to say so).
    private func fit(_ text: String, _ width: Int) -> String {
        fitted(text, columns: width)
    }
}

extension GroupInfo {
    /// The group with `member`'s entry as the member names itself now; nil when it is no
    /// member, or its name and alias are the ones known.
    package func renaming(_ member: PeerInfo) -> GroupInfo? {
        guard let index = members.firstIndex(where: { $0.id == member.id }),
            members[index].name != member.name || members[index].alias != member.alias
        else { return nil }
        var renamed = self
        renamed.members[index] = member
        return renamed
    }
}
