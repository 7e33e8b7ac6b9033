import LanChatCLI
import LanChatControl
import Testing

/// The pure parts of `lanchat chat`: the screen model (state → rows), the line editor and
/// the key decoder, without a terminal.
@Suite struct ChatScreenTests {
    static let now = Timestamp(millisecondsSince1970: 1_750_000_000_000)
    static let utc = FixedUTCOffset(seconds: 0)
    static let bob = PeerInfo(
        id: "B", keyTag: "BBBB-BBBB", name: "bob", presence: .offline,
        lastSeen: Timestamp(millisecondsSince1970: 1_750_000_000_000 - 5 * 60_000))

    static func message(
        _ id: String, _ text: String, out: Bool = false, status: MessageStatus? = nil
    ) -> MessageInfo {
        MessageInfo(
            id: id, peer: "B", direction: out ? .outgoing : .incoming, seq: 1, text: text,
            createdAt: now, status: out ? status ?? .queued : nil)
    }

    /// What was missed while our daemon was away comes right after the newest shown when
    /// it was asked for, ahead of what came live meanwhile (found by QA: it came after the
    /// newest page, out of order and out of view).
    @Test func aCatchUpGoesAfterItsAnchorAheadOfWhatCameLive() {
        var screen = ChatScreen(peer: Self.bob)
        screen.merge(["a", "b"].map { Self.message($0, $0) })
        // Live while the catch-up was read: one it holds, one newer.
        screen.merge(["x", "y"].map { Self.message($0, $0) })
        screen.insert(["c", "d", "x"].map { Self.message($0, $0) }, after: "b")
        #expect(screen.messages.map(\.id) == ["a", "b", "c", "d", "x", "y"])
        #expect(screen.newestID == "y" && screen.oldestID == "a")
        // More than one catch-up takes: the newest page instead, older ones behind /more.
        screen.scrollBack = 3
        screen.replace(with: ["p", "q"].map { Self.message($0, $0) }, hasOlder: true)
        #expect(screen.messages.map(\.id) == ["p", "q"])
        #expect(screen.hasOlder && screen.scrollBack == 0)
    }

    @Test func statusMarksUpdateInPlaceAndTheOfflineLineSaysWhen() {
        var screen = ChatScreen(peer: Self.bob)
        screen.merge([Self.message("1", "hi"), Self.message("2", "yo", out: true)])
        let before = screen.render(
            width: 60, height: 10, input: LineEditor(), now: Self.now, zone: Self.utc)
        #expect(before.rows.contains { $0.hasSuffix("You  yo  …") })
        screen.merge([Self.message("2", "yo", out: true, status: .read)])
        let after = screen.render(
            width: 60, height: 10, input: LineEditor(), now: Self.now, zone: Self.utc)
        #expect(after.rows.contains { $0.hasSuffix("You  yo  ✓✓ read") })
        #expect(after.rows.filter { $0.contains("yo") }.count == 1)
        #expect(
            screen.presenceLine(now: Self.now, zone: Self.utc)
                == "offline, last seen 5m ago — messages will be delivered when bob is back")
        screen.peerTyping = true
        #expect(screen.presenceLine(now: Self.now, zone: Self.utc) == "bob is typing…")
        // An incoming message ends the indicator.
        screen.merge([Self.message("3", "done")])
        #expect(!screen.peerTyping)
        // Blocked, nothing is delivered when bob is back: the line says so (found by QA).
        var blocked = Self.bob
        blocked.trust = .blocked
        screen.peer = blocked
        #expect(
            screen.presenceLine(now: Self.now, zone: Self.utc)
                == "bob is blocked: nothing is sent or taken — lanchat unblock to talk again")
    }

    /// A batch sent with `send --lines` shares one time: its older lines, out of view, stay
    /// out when their status changes (found by QA: they came in at the bottom).
    @Test func aBatchsOlderLinesStayOutOfViewWhenRead() {
        var screen = ChatScreen(peer: Self.bob)
        var batch = (1...4).map { Self.message("\($0)", "line \($0)", out: true) }
        for index in batch.indices { batch[index].seq = UInt64(index + 1) }
        screen.merge(Array(batch.suffix(2)))
        screen.hasOlder = true
        var read = batch[0]
        read.status = .read
        screen.merge([read])
        #expect(screen.messages.map(\.text) == ["line 3", "line 4"])
    }

    /// Found by QA: a read receipt for an own message older than the page shown appended it
    /// at the bottom, where `/more` never moved it from. It stays out of view (`/more` brings
    /// it in its place); a new own message or a received one with an old clock still comes in.
    @Test func aStatusChangeOfAMessageOlderThanThoseShownStaysOutOfView() {
        func at(_ minutes: Int64, _ message: MessageInfo) -> MessageInfo {
            var message = message
            message.createdAt = Timestamp(
                millisecondsSince1970: Self.now.millisecondsSince1970 + minutes * 60_000)
            return message
        }
        var screen = ChatScreen(peer: Self.bob)
        screen.mergePage([at(0, Self.message("10", "filler")), at(1, Self.message("11", "more"))])
        screen.hasOlder = true
        screen.merge([at(-60, Self.message("1", "old question", out: true, status: .read))])
        #expect(screen.messages.map(\.id) == ["10", "11"])
        screen.merge([
            at(-90, Self.message("12", "bob's clock is late")),
            at(2, Self.message("13", "sent from another terminal", out: true)),
        ])
        #expect(screen.messages.map(\.id) == ["10", "11", "12", "13"])
        screen.prepend(
            [at(-60, Self.message("1", "old question", out: true, status: .read))],
            hasOlder: false)
        #expect(screen.messages.map(\.id) == ["1", "10", "11", "12", "13"])
        // With nothing older left out, an unknown own message is new: it comes in.
        screen.merge([at(-120, Self.message("14", "clock went back", out: true))])
        #expect(screen.messages.last?.id == "14")
    }

    /// A line's `send` answer comes on its own connection and can arrive after the watch's
    /// `delivered` for it: it adds the message when not shown yet, and never takes a shown
    /// one back to the status it had at the send (seen in a full run: stuck at ✓).
    @Test func aSendAnswerAfterTheStatusEventDoesNotTakeTheMarkBack() {
        var screen = ChatScreen(peer: Self.bob)
        screen.merge([Self.message("2", "yo", out: true, status: .delivered)])
        screen.addSent([Self.message("2", "yo", out: true, status: .sent)])
        let rows = screen.render(
            width: 60, height: 10, input: LineEditor(), now: Self.now, zone: Self.utc
        ).rows
        #expect(rows.contains { $0.hasSuffix("You  yo  ✓✓") }, "\(rows)")
        screen.addSent([Self.message("3", "new", out: true, status: .sent)])
        #expect(screen.messages.map(\.id) == ["2", "3"])
    }

    /// A pasted line far wider than the screen shows its end with the cursor after it, and
    /// moving the cursor to the start shows the start: only a screen's width is measured.
    @Test func aVeryLongInputLineShowsAroundTheCursor() {
        var input = LineEditor()
        for character in String(repeating: "abcdefghij", count: 10_000) + "日本END" {
            _ = input.apply(.character(character))
        }
        let screen = ChatScreen(peer: Self.bob)
        let atEnd = screen.render(
            width: 40, height: 10, input: input, now: Self.now, zone: Self.utc)
        #expect(atEnd.rows.last?.hasSuffix("日本END") == true, "\(atEnd.rows.last ?? "")")
        #expect(atEnd.cursorColumn == 39)
        _ = input.apply(.home)
        let atStart = screen.render(
            width: 40, height: 10, input: input, now: Self.now, zone: Self.utc)
        #expect(atStart.rows.last?.hasPrefix("> abcdefghij") == true)
        #expect(atStart.cursorColumn == 2)
    }

    /// In a long line the cursor moves within the view, which scrolls only when the cursor
    /// would leave it, either way (found by QA, twice: the text scrolled under a cursor kept
    /// at the right edge, then in the middle). As chat's loop does, the view's start is
    /// kept from one drawing to the next.
    @Test func theCursorMovesWithinTheViewOfALongLineEitherWay() {
        var input = LineEditor()
        let typed = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for character in typed { _ = input.apply(.character(character)) }
        var screen = ChatScreen(peer: Self.bob)
        func press(_ key: ChatKey, times: Int = 1) -> ChatScreen.Rendered {
            for _ in 0..<times { _ = input.apply(key) }
            screen.inputStart = screen.inputViewStart(input, width: 41)
            return screen.render(
                width: 41, height: 10, input: input, now: Self.now, zone: Self.utc)
        }
        let atEnd = press(.end)
        #expect(atEnd.rows.last == "> " + String(typed.suffix(38)))
        #expect(atEnd.cursorColumn == 40)
        // Left: the cursor goes to the view's left edge, the text stays.
        let moved = press(.left, times: 38)
        #expect(moved.rows.last == atEnd.rows.last)
        #expect(moved.cursorColumn == 2)
        // One more: the view scrolls by one character, the cursor stays at the edge.
        let scrolled = press(.left)
        // (The cell under the cursor shows a character too: 39 of them while more follow.)
        #expect(scrolled.rows.last == "> " + String(typed[23..<62]))
        #expect(scrolled.cursorColumn == 2)
        // Home, then Right: the cursor goes to the right edge before the text moves.
        let home = press(.home)
        #expect(home.rows.last == "> " + String(typed[0..<39]))
        #expect(home.cursorColumn == 2)
        let right = press(.right, times: 38)
        #expect(right.rows.last == home.rows.last)
        #expect(right.cursorColumn == 40)
        let further = press(.right)
        #expect(further.rows.last == "> " + String(typed[1..<40]))
        #expect(further.cursorColumn == 40)
    }

    /// Fewer than four rows: the line being typed is still drawn, at the bottom, with what
    /// fits above it (found by QA: at three rows it was not drawn at all).
    @Test func aShortTerminalKeepsTheInputLine() {
        var input = LineEditor()
        for character in "xyz" { _ = input.apply(.character(character)) }
        var screen = ChatScreen(peer: Self.bob)
        screen.merge([Self.message("1", "hello")])
        for height in 1...3 {
            let rendered = screen.render(
                width: 40, height: height, input: input, now: Self.now, zone: Self.utc)
            #expect(rendered.rows.count == height)
            #expect(rendered.rows.last == "> xyz")
            #expect(rendered.cursorRow == height - 1)
            #expect(rendered.cursorColumn == 5)
        }
        let three = screen.render(
            width: 40, height: 3, input: input, now: Self.now, zone: Self.utc)
        #expect(three.rows[1].hasSuffix("hello"))
    }

    /// An own message's mark wraps as one piece (found by QA: "✓✓" ended a row and "read"
    /// began the next).
    @Test func aStatusMarkIsNeverSplitAcrossRows() {
        var screen = ChatScreen(peer: Self.bob)
        var own = Self.message("1", "aaaa bbbb cccc dddd e", out: true, status: .read)
        own.readAt = Self.now
        screen.merge([own])
        for width in 30...60 {
            let rows = screen.conversationRows(width: width, now: Self.now, zone: Self.utc)
            #expect(rows.contains { $0.hasSuffix("✓✓ read") }, "\(width): \(rows)")
            #expect(!rows.contains { $0.hasSuffix("✓✓") }, "\(width): \(rows)")
            // On a row of its own, it lines up with the text (found by QA: one column further
            // in when the text filled its row exactly).
            let first = Array(rows.first { $0.contains("aaaa") } ?? "")
            let textColumn = (0..<first.count).first { Array(first[$0...]).starts(with: "aaaa") }
            for row in rows where row.drop { $0 == " " } == "✓✓ read" {
                #expect(row.prefix { $0 == " " }.count == textColumn, "\(width): \(rows)")
            }
        }
    }

    /// `chat GROUP`: the header names the group, each incoming line its sender, and no one
    /// member's presence or typing stands for the conversation.
    @Test func aGroupConversationShowsTheGroupAndEachSender() {
        let carol = PeerInfo(id: "C", keyTag: "CCCC-CCCC", name: "carol", presence: .online)
        var screen = ChatScreen(peer: Self.bob)
        screen.group = GroupInfo(id: "g", name: "ops", members: [Self.bob, carol], version: 2)
        var fromBob = Self.message("1", "deploying")
        fromBob.sender = "B"
        var fromCarol = Self.message("2", "done")
        fromCarol.sender = "C"
        screen.merge([fromBob, fromCarol])
        let rows = screen.render(
            width: 60, height: 10, input: LineEditor(), now: Self.now, zone: Self.utc
        ).rows
        #expect(rows[0] == "#ops  2 members")
        #expect(rows.contains { $0.hasSuffix("bob    deploying") })
        #expect(rows.contains { $0.hasSuffix("carol  done") })
        #expect(screen.presenceLine(now: Self.now, zone: Self.utc) == "")
    }

    /// A member renamed while the group's chat is open is labelled by its new name from its
    /// next message on, on what it wrote before too (found by QA: the old name stayed); a
    /// peer that is no member changes nothing.
    @Test func aMemberRenamedIsLabelledByItsNewName() {
        let carol = PeerInfo(id: "C", keyTag: "CCCC-CCCC", name: "carol", presence: .online)
        var screen = ChatScreen(peer: Self.bob)
        let group = GroupInfo(id: "g", name: "ops", members: [Self.bob, carol], version: 2)
        screen.group = group
        var before = Self.message("1", "deploying")
        before.sender = "B"
        screen.merge([before])
        var robert = Self.bob
        robert.name = "robert"
        screen.memberSeen(robert)
        var after = Self.message("2", "done")
        after.sender = "B"
        screen.merge([after])
        let rows = screen.render(
            width: 60, height: 10, input: LineEditor(), now: Self.now, zone: Self.utc
        ).rows
        #expect(rows.contains { $0.hasSuffix("robert  deploying") }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("robert  done") }, "\(rows)")
        #expect(!rows.contains { $0.contains("bob ") }, "\(rows)")
        let stranger = PeerInfo(id: "S", keyTag: "SSSS-SSSS", name: "sam", presence: .online)
        #expect(group.renaming(stranger) == nil)
        #expect(group.renaming(carol) == nil)
    }

    /// An own group message's `message.status` event is one member's copy: the mark counts
    /// it among the members, and the message is read only when every member has read it
    /// (found by QA: the first reader's "read" stood for the whole message).
    @Test func aGroupCopysStatusCountsAmongTheMembers() {
        let carol = PeerInfo(id: "C", keyTag: "CCCC-CCCC", name: "carol", presence: .online)
        var screen = ChatScreen(peer: Self.bob)
        screen.group = GroupInfo(id: "g", name: "ops", members: [Self.bob, carol], version: 2)
        var own = Self.message("9", "to all", out: true, status: .delivered)
        own.group = "g"
        own.recipients = [
            RecipientInfo(peer: "B", status: .delivered, deliveredAt: Self.now),
            RecipientInfo(peer: "C", status: .delivered, deliveredAt: Self.now),
        ]
        screen.merge([own])
        func row() -> String? {
            screen.render(
                width: 60, height: 10, input: LineEditor(), now: Self.now, zone: Self.utc
            ).rows.first { $0.contains("to all") }
        }
        #expect(row()?.hasSuffix("to all  ✓✓ 2/2") == true, "\(row() ?? "")")

        // bob's copy was read: the event carries that copy, its peer bob.
        var copy = Self.message("9", "to all", out: true, status: .read)
        copy.group = "g"
        copy.readAt = Self.now
        screen.merge([copy])
        #expect(row()?.hasSuffix("to all  ✓✓ 2/2 (1 read)") == true, "\(row() ?? "")")
        #expect(screen.messages.first?.status == .delivered)

        copy.peer = "C"
        screen.merge([copy])
        #expect(screen.messages.first?.status == .read)
        #expect(screen.messages.first?.readAt == Self.now)

        // Today's daemons send the copy shaped as history shows the message: our own id as
        // its peer, the member's copy as its one recipient.
        screen.merge([own])
        #expect(row()?.hasSuffix("to all  ✓✓ 2/2") == true, "\(row() ?? "")")
        var shaped = Self.message("9", "to all", out: true, status: .read)
        shaped.group = "g"
        shaped.peer = "OWN"
        shaped.recipients = [RecipientInfo(peer: "C", status: .read, readAt: Self.now)]
        screen.merge([shaped])
        #expect(row()?.hasSuffix("to all  ✓✓ 2/2 (1 read)") == true, "\(row() ?? "")")
        #expect(screen.messages.first?.recipients?.count == 2)
    }

    /// A chat on a group of bob and carol.
    static func groupScreen() -> ChatScreen {
        let carol = PeerInfo(id: "C", keyTag: "CCCC-CCCC", name: "carol", presence: .online)
        var screen = ChatScreen(peer: Self.bob)
        screen.group = GroupInfo(id: "g", name: "ops", members: [Self.bob, carol], version: 2)
        return screen
    }

    /// Our group message "fast" as the daemon shapes it: `members` its recipients, each with
    /// `status` (one member: a copy's `message.status` event; all: the send's answer).
    static func ownGroupMessage(_ members: [String], _ status: MessageStatus) -> MessageInfo {
        var message = Self.message("9", "fast", out: true, status: status)
        message.group = "g"
        message.peer = "OWN"
        message.recipients = members.map { member in
            RecipientInfo(
                peer: member, status: status,
                deliveredAt: status == .delivered || status == .read ? Self.now : nil,
                readAt: status == .read ? Self.now : nil)
        }
        return message
    }

    /// Copies can report before the send's answer comes (found by QA: 20 lines sent fast to
    /// a group of three showed half as "1/1", and "read" once that one member had read them):
    /// the answer, with every member, takes the message's place with the copies laid over it.
    @Test func copiesReportedBeforeTheSendsAnswerCountAmongAllMembers() {
        var screen = Self.groupScreen()
        func row() -> String? {
            screen.render(
                width: 60, height: 10, input: LineEditor(), now: Self.now, zone: Self.utc
            ).rows.first { $0.contains("fast") }
        }
        screen.merge([Self.ownGroupMessage(["C"], .delivered)])
        // Another member's copy, still before the answer: it joins, it does not replace.
        screen.merge([Self.ownGroupMessage(["B"], .delivered)])
        #expect(screen.messages.first?.recipients?.count == 2)
        screen.addSent([Self.ownGroupMessage(["B", "C"], .queued)])
        #expect(screen.messages.count == 1)
        #expect(row()?.hasSuffix("fast  ✓✓ 2/2") == true, "\(row() ?? "")")
        // carol reads it; bob has not: not read.
        screen.merge([Self.ownGroupMessage(["C"], .read)])
        #expect(row()?.hasSuffix("fast  ✓✓ 2/2 (1 read)") == true, "\(row() ?? "")")
        #expect(screen.messages.first?.status == .delivered)
    }

    /// A copy before the answer of a group of three is not taken for the whole message.
    @Test func aCopyBeforeTheAnswerOfAThreeMemberGroupIsNotTakenForTheWholeMessage() {
        var screen = Self.groupScreen()
        screen.merge([Self.ownGroupMessage(["C"], .read)])
        screen.addSent([Self.ownGroupMessage(["B", "C"], .queued)])
        #expect(screen.messages.first?.recipients?.count == 2)
        #expect(screen.messages.first?.status == .queued)
        #expect(screen.messages.first?.recipients?.first { $0.peer == "C" }?.status == .read)
    }

    /// Opened on more unread messages than fit, the view starts at the first of them (one row
    /// of context above); when they all fit, it stays at the newest.
    @Test func aChatOpensAtTheFirstUnreadWhenTheyDoNotFit() {
        var screen = ChatScreen(peer: Self.bob)
        var messages = [Self.message("0", "read before")]
        messages[0].read = true
        for index in 1...30 {
            var unread = Self.message("\(index)", "unread \(index)")
            unread.read = false
            messages.append(unread)
        }
        screen.merge(messages)
        let scrolled = screen.scrollToFirstUnread(
            width: 60, height: 12, now: Self.now, zone: Self.utc)
        #expect(scrolled)
        let rows = screen.render(
            width: 60, height: 12, input: LineEditor(), now: Self.now, zone: Self.utc
        ).rows
        #expect(rows[1].hasSuffix("bob  read before"), "\(rows)")
        #expect(rows[2].hasSuffix("bob  unread 1"), "\(rows)")

        var few = ChatScreen(peer: Self.bob)
        few.merge(Array(messages.suffix(3)))
        let fewScrolled = few.scrollToFirstUnread(
            width: 60, height: 12, now: Self.now, zone: Self.utc)
        #expect(!fewScrolled)
        #expect(few.scrollBack == 0)
    }

    /// A pending message request says how it is accepted; typing and notices come first.
    @Test func aMessageRequestSaysHowItIsAccepted() {
        var online = Self.bob
        online.presence = .online
        var screen = ChatScreen(peer: online)
        screen.isRequest = true
        #expect(
            screen.presenceLine(now: Self.now, zone: Self.utc)
                == "message request from bob: your reply accepts it")
        screen.peerTyping = true
        #expect(screen.presenceLine(now: Self.now, zone: Self.utc) == "bob is typing…")
    }

    /// A peer gone offline types no more; a line too long for the screen says it was cut.
    @Test func anOfflinePeerStopsTypingAndACutLineEndsInAnEllipsis() {
        var online = Self.bob
        online.presence = .online
        var screen = ChatScreen(peer: online)
        screen.peerTyping = true
        screen.peer = online
        #expect(screen.peerTyping)
        screen.peer = Self.bob
        #expect(!screen.peerTyping)

        screen.notice = "not sent: lanchatd is not running (nothing listens on /tmp/a.sock)"
        let rows = screen.render(
            width: 30, height: 6, input: LineEditor(), now: Self.now, zone: Self.utc
        ).rows
        #expect(rows[4] == "not sent: lanchatd is not run…", "\(rows)")
    }

    /// A narrow terminal (found by QA): text below the time and name once fewer than 20
    /// columns would be left beside them, and a shorter offline line where the long one is cut.
    @Test func aNarrowTerminalKeepsTextReadable() {
        var screen = ChatScreen(peer: Self.bob)
        screen.merge([Self.message("1", "a message of some length")])
        let narrow = screen.render(
            width: 26, height: 8, input: LineEditor(), now: Self.now, zone: Self.utc
        ).rows
        #expect(narrow[4] == "15:06  bob", "\(narrow)")
        #expect(narrow[5] == "  a message of some length", "\(narrow)")
        #expect(narrow[6] == "offline, last seen 5m ago", "\(narrow)")
        let wide = screen.render(
            width: 60, height: 8, input: LineEditor(), now: Self.now, zone: Self.utc
        ).rows
        #expect(wide[5] == "15:06  bob  a message of some length", "\(wide)")
        #expect(wide[6] == "offline, last seen 5m ago — delivered when back", "\(wide)")
    }

    /// Our own daemon away: the header does not go on saying what it last heard.
    @Test func theHeaderDoesNotClaimAPresenceWhileOurDaemonIsAway() {
        var screen = ChatScreen(peer: Self.bob)
        let render = {
            screen.render(width: 60, height: 6, input: LineEditor(), now: Self.now, zone: Self.utc)
                .rows[0]
        }
        #expect(render() == "bob  BBBB-BBBB  offline")
        screen.daemonAway = true
        #expect(render() == "bob  BBBB-BBBB  presence unknown")
    }

    /// The newest page read again puts a message missed meanwhile in its place, not after
    /// the newer ones; what is shown before the page, and sent after it, stays.
    @Test func aPageReadAgainPutsAMissedMessageInItsPlace() {
        var screen = ChatScreen(peer: Self.bob)
        screen.merge([
            Self.message("1", "older"), Self.message("2", "mine", out: true),
            Self.message("4", "after the gap"), Self.message("5", "just sent", out: true),
        ])
        screen.mergePage([
            Self.message("2", "mine", out: true, status: .delivered), Self.message("3", "missed"),
            Self.message("4", "after the gap"),
        ])
        #expect(screen.messages.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(screen.messages[1].status == .delivered)
    }

    @Test func longAndWideTextWrapsWithinTheWidth() {
        var screen = ChatScreen(peer: Self.bob)
        screen.merge([Self.message("1", String(repeating: "日本 ", count: 20) + "😀end")])
        let rows = screen.render(
            width: 30, height: 20, input: LineEditor(), now: Self.now, zone: Self.utc
        ).rows
        #expect(rows.allSatisfy { DisplayWidth.of($0) <= 30 }, "\(rows)")
        #expect(rows.contains { $0.hasSuffix("😀end") })
        #expect(DisplayWidth.of("日😀a") == 5)
    }

    /// CJK is written without spaces and may break between any two of its characters: a
    /// run of it fills the row it starts on (found by QA: it went whole to the next row).
    @Test func cjkBreaksBetweenCharactersAndLatinAtSpaces() {
        #expect(DisplayWidth.wrap("CJK: 日本語の文字です", width: 12) == ["CJK: 日本語", "の文字です"])
        #expect(DisplayWidth.wrap("日本語abc def", width: 9) == ["日本語abc", "def"])
        #expect(DisplayWidth.wrap("日本 abcdefgh", width: 8) == ["日本", "abcdefgh"])
        // Tabs become the spaces to the next stop, so that wrapping counts what is drawn
        // (found by QA: text after tabs was cut off at narrow widths).
        #expect(DisplayWidth.expandingTabs("a\tbc\t日\tx") == "a       bc      日      x")
        let row = DisplayWidth.wrap(DisplayWidth.expandingTabs("col1\tcol2\tcol3\tEND"), width: 20)
        #expect(
            row.joined(separator: " ").contains("END")
                && row.allSatisfy { DisplayWidth.of($0) <= 20 })
        #expect(DisplayWidth.wrap("hello world", width: 8) == ["hello", "world"])
        #expect(DisplayWidth.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(DisplayWidth.wrap("ab日", width: 3) == ["ab", "日"])
        #expect(DisplayWidth.wrap("hello world", width: 5) == ["hello", "world"])
    }

    /// An emoji sequence is as wide as ncurses places it, a scalar at a time, so that a
    /// row never runs over in ncurses; a screen with one is drawn whole (found by QA: a
    /// partial update left characters behind).
    @Test func emojiSequencesCountWhatNcursesPlaces() {
        #expect(DisplayWidth.of(Character("👍🏽")) == 4)
        #expect(DisplayWidth.of(Character("👨‍👩‍👧")) == 6)
        #expect(DisplayWidth.of(Character("🇫🇷")) == 2)
        #expect(DisplayWidth.of(Character("❤️")) == 2)
        #expect(DisplayWidth.of(Character("e\u{301}")) == 1)
        #expect(DisplayWidth.mayDisagree("ok ❤️"))
        #expect(DisplayWidth.mayDisagree("🇫🇷"))
        #expect(!DisplayWidth.mayDisagree("café 日本 😀"))
        #expect(!DisplayWidth.mayDisagree("e\u{301}"))
    }

    /// Keys come one scalar at a time; the editor keeps what the user sees as one character
    /// together (found by QA: Left split a flag, Backspace took a skin tone off).
    @Test func editingMovesOverWholeCharacters() {
        var editor = LineEditor()
        for scalar in "a🇫🇷b".unicodeScalars { _ = editor.apply(.character(Character(scalar))) }
        _ = editor.apply(.left)
        _ = editor.apply(.left)
        _ = editor.apply(.character("X"))
        #expect(editor.line == "aX🇫🇷b")
        _ = editor.apply(.killLine)
        _ = editor.apply(.killToEnd)
        for text in ["ab👍🏽", "e\u{301}", "👨‍👩‍👧"] {
            for scalar in text.unicodeScalars { _ = editor.apply(.character(Character(scalar))) }
            #expect(editor.text.last.map(String.init) == text.last.map(String.init))
            _ = editor.apply(.backspace)
            #expect(editor.line == String(text.dropLast()), "\(text)")
            _ = editor.apply(.killLine)
        }
        for scalar in "🇫🇷🇩🇪".unicodeScalars { _ = editor.apply(.character(Character(scalar))) }
        #expect(editor.text.count == 2)
    }

    @Test func theInputLineKeepsTheCursorInViewAndTheBottomRow() {
        var editor = LineEditor()
        for character in String(repeating: "x", count: 50) + "漢" {
            _ = editor.apply(.character(character))
        }
        let rendered = ChatScreen(peer: Self.bob).render(
            width: 20, height: 6, input: editor, now: Self.now, zone: Self.utc)
        #expect(rendered.rows.count == 6)
        #expect(rendered.cursorRow == 5)
        #expect(rendered.rows[5].hasSuffix("漢"))
        #expect(rendered.cursorColumn <= 20)
    }

    /// A pasted line break ends a word for Ctrl-W, as a space does.
    @Test func ctrlWStopsAtAPastedLineBreak() {
        var editor = LineEditor()
        for character in "aaa\nbbb" { _ = editor.apply(.character(character)) }
        _ = editor.apply(.killWord)
        #expect(editor.line == "aaa\n")
        _ = editor.apply(.killWord)
        #expect(editor.line == "")
    }

    @Test func lineEditingKeys() {
        var editor = LineEditor()
        for character in "hello big world" { _ = editor.apply(.character(character)) }
        #expect(editor.apply(.killWord) == .edited)
        #expect(editor.line == "hello big ")
        _ = editor.apply(.home)
        _ = editor.apply(.character(">"))
        _ = editor.apply(.end)
        _ = editor.apply(.backspace)
        #expect(editor.line == ">hello big")
        _ = editor.apply(.left)
        _ = editor.apply(.left)
        #expect(editor.apply(.killLine) == .edited)
        #expect(editor.line == "ig")
        #expect(editor.apply(.enter) == .submit("ig"))
        #expect(editor.apply(.enter) == .none)
        for character in "second" { _ = editor.apply(.character(character)) }
        _ = editor.apply(.enter)
        for character in "draft" { _ = editor.apply(.character(character)) }
        _ = editor.apply(.up)
        #expect(editor.line == "second")
        _ = editor.apply(.up)
        #expect(editor.line == "ig")
        _ = editor.apply(.down)
        _ = editor.apply(.down)
        #expect(editor.line == "draft")
        #expect(editor.apply(.endOfInput) == .none)
        _ = editor.apply(.killLine)
        #expect(editor.apply(.endOfInput) == .quit)
        #expect(editor.apply(.interrupt) == .quit)
    }

    /// Ctrl-K deletes to the end; a "//" line is a message, kept in the Up history, where
    /// a command is not.
    @Test func killToEndAndSlashLines() {
        var editor = LineEditor()
        for character in "keep this part" { _ = editor.apply(.character(character)) }
        for _ in 0..<5 { _ = editor.apply(.left) }
        #expect(editor.apply(.killToEnd) == .edited)
        #expect(editor.line == "keep this")
        #expect(editor.apply(.killToEnd) == .none)
        _ = editor.apply(.killLine)
        for line in ["//etc/hosts", "/more"] {
            for character in line { _ = editor.apply(.character(character)) }
            #expect(editor.apply(.enter) == .submit(line))
        }
        _ = editor.apply(.up)
        #expect(editor.line == "//etc/hosts")
        #expect(ChatKeyDecoder.character(0x0B) == .killToEnd)
        _ = editor.apply(.killLine)
        // A message goes as typed, its white space kept (found by QA: pasted code lost its
        // indentation); a command is known around white space; blank is nothing.
        for (typed, submitted) in [("   x = 1  ", "   x = 1  "), ("  /more ", "/more")] {
            for character in typed { _ = editor.apply(.character(character)) }
            #expect(editor.apply(.enter) == .submit(submitted))
        }
        for character in "   " { _ = editor.apply(.character(character)) }
        #expect(editor.apply(.enter) == LineEditor.Action.none)
    }

    @Test func controlCharactersDecodeAsReadlineKeys() {
        #expect(ChatKeyDecoder.character(0x01) == .home)
        #expect(ChatKeyDecoder.character(0x05) == .end)
        #expect(ChatKeyDecoder.character(0x15) == .killLine)
        #expect(ChatKeyDecoder.character(0x17) == .killWord)
        #expect(ChatKeyDecoder.character(0x7F) == .backspace)
        #expect(ChatKeyDecoder.character(0x0D) == .enter)
        #expect(ChatKeyDecoder.character(0x03) == .interrupt)
        #expect(ChatKeyDecoder.character(0x04) == .endOfInput)
        #expect(ChatKeyDecoder.character(0x9B) == .other)
        #expect(ChatKeyDecoder.character(0x1F600) == .character("😀"))
    }

    /// An Alt chord (`ESC b`) or an escape sequence ncurses did not decode (`ESC [ 4 ~`,
    /// `ESC O F`) is dropped whole: none of it is typed into the message.
    @Test func unknownEscapeSequencesAndAltChordsTypeNothing() {
        func kept(_ text: String, functionKeyAt: Int? = nil) -> String {
            var characters: [UInt32?] = text.unicodeScalars.map(\.value)
            if let functionKeyAt { characters.insert(nil, at: functionKeyAt) }
            let keep = ChatKeyDecoder.withoutEscapeSequences(characters)
            return String(
                String.UnicodeScalarView(
                    zip(characters, keep).compactMap { character, kept in
                        kept ? character.flatMap(Unicode.Scalar.init) : nil
                    }))
        }
        #expect(kept("abc\u{1B}bdef") == "abcdef")
        #expect(kept("x\u{1B}[4~y") == "xy")
        #expect(kept("x\u{1B}[1;5Cy") == "xy")
        #expect(kept("x\u{1B}OFy") == "xy")
        // A lone Escape, and one before a key ncurses decoded, stay what they were.
        #expect(kept("x\u{1B}") == "x\u{1B}")
        #expect(ChatKeyDecoder.withoutEscapeSequences([0x1B, nil]) == [true, true])
    }
}
