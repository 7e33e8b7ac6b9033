import LanChatCLI
import LanChatControl
import Testing

/// The text views of the reading commands as pure functions: inbox lines, search
/// highlighting and watch lines.
@Suite struct ReadingRenderingTests {
    let utc = FixedUTCOffset(seconds: 0)

    func conversation(
        name: String, alias: String? = nil, presence: Presence = .online, text: String,
        direction: MessageDirection = .incoming, status: MessageStatus? = nil
    ) -> ConversationInfo {
        var peer = CLIFixtures.bob
        peer.name = name
        peer.alias = alias
        peer.presence = presence
        var message = CLIFixtures.incoming(1, text, at: "2026-11-21T11:59:30Z")
        message.direction = direction
        message.status = status
        return ConversationInfo(
            peer: peer, unread: 0, lastMessage: message, archived: false,
            updatedAt: message.createdAt)
    }

    func inbox(_ conversations: [ConversationInfo], style: TextStyle = .plain) -> String {
        InboxView.render(
            InboxResult(conversations: conversations), query: nil, archived: false,
            now: CLIFixtures.now, zone: utc, style: style)
    }

    /// Issue 13: a group conversation (`peer: null`) shows `#`, the group's name and the
    /// sender before an incoming preview; a 1:1 line beside it is unchanged.
    @Test func aGroupConversationShowsItsNameAndTheSender() {
        var message = CLIFixtures.incoming(3, "build is green", at: "2026-11-21T11:58:00Z")
        message.group = String(repeating: "a", count: 32)
        message.sender = CLIFixtures.bobID
        let group = GroupInfo(
            id: String(repeating: "a", count: 32), name: "ops",
            members: [CLIFixtures.bob, CLIFixtures.carol], version: 2)
        let text = inbox([
            ConversationInfo(
                peer: nil, group: group, unread: 2, lastMessage: message, archived: false,
                updatedAt: message.createdAt),
            CLIFixtures.carolConversation,
        ])
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("# ops  "), "\(text)")
        #expect(lines[0].contains("2  Bob: build is green"), "\(text)")
        #expect(lines[1].contains("You: see you monday ✓✓"), "\(text)")
    }

    /// A sender removed from the group (or gone) is no longer in its member list: `history`
    /// A member that names itself as another member is named is not taken for it: both are
    /// told apart by their key tags (found by QA); one name alone stays bare.
    @Test func membersWithOneNameAreToldApartByKeyTag() {
        let bob = PeerInfo(id: "B", keyTag: "BBBB-2222", name: "bob", presence: .online)
        let impostor = PeerInfo(id: "X", keyTag: "XXXX-3333", name: "Bob", presence: .online)
        let carol = PeerInfo(id: "C", keyTag: "CCCC-4444", name: "carol", presence: .online)
        let group = GroupInfo(id: "g", name: "ops", members: [bob, impostor, carol], version: 2)
        let labels = HistoryView.senderLabels(group, width: 24)
        #expect(labels == ["B": "bob (BBBB-2222)", "X": "Bob (XXXX-3333)", "C": "carol"])
        let narrow = HistoryView.senderLabels(group, width: 14)
        #expect(narrow["X"]?.hasSuffix(" (XXXX-3333)") == true, "\(narrow)")
    }

    /// The label column is as wide as the terminal draws the labels: a CJK name (two columns
    /// a character) lines its text up with `You`'s, and its message's next lines under it
    /// (found by QA: counted in characters, the text went 3 columns right, the indent 3 left).
    @Test func wideNamesKeepTheTextColumn() {
        var li = CLIFixtures.bob
        li.alias = "李小龍"
        let result = HistoryResult(
            peer: li,
            messages: [
                CLIFixtures.incoming(1, "first line\nsecond line", at: "2026-11-21T11:58:00Z"),
                CLIFixtures.outgoing(2, "reply", .delivered, at: "2026-11-21T11:59:00Z"),
            ], hasOlder: false)
        let text = HistoryView.render(
            result, peers: [:], now: CLIFixtures.now, zone: utc, style: .plain)
        let lines = text.split(separator: "\n").map(String.init)
        let body = lines.drop { !$0.hasPrefix("11:58") }
        #expect(
            Array(body.prefix(3)) == [
                "11:58  李小龍  first line",
                "               second line",
                "11:59  You     reply  ✓✓",
            ], "\(text)")
    }

    /// and `inbox` name it from the peers the command looked up, not as `?`.
    @Test func aFormerMemberIsStillNamedInHistoryAndInbox() {
        let groupID = String(repeating: "a", count: 32)
        let group = GroupInfo(id: groupID, name: "ops", members: [CLIFixtures.carol], version: 3)
        var message = CLIFixtures.incoming(3, "before I left", at: "2026-11-21T11:58:00Z")
        message.group = groupID
        message.sender = CLIFixtures.bobID
        var result = HistoryResult(peer: CLIFixtures.carol, messages: [message], hasOlder: false)
        result.group = group
        let former = [CLIFixtures.bobID: CLIFixtures.bob]
        func line(_ peers: [String: PeerInfo]) -> String {
            let text = HistoryView.render(
                result, peers: peers, now: CLIFixtures.now, zone: utc, style: .plain)
            return text.split(separator: "\n").last.map(String.init) ?? ""
        }
        #expect(line([:]).hasPrefix("11:58  ?  "), "\(line([:]))")
        #expect(line(former).hasPrefix("11:58  Bob  "), "\(line(former))")
        let row = InboxView.render(
            InboxResult(conversations: [
                ConversationInfo(
                    peer: nil, group: group, unread: 1, lastMessage: message, archived: false,
                    updatedAt: message.createdAt)
            ]), query: nil, archived: false, peers: former, now: CLIFixtures.now, zone: utc,
            style: .plain)
        #expect(row.contains("Bob: before I left"), "\(row)")
        // `archive` and `unarchive` name it as GROUP arguments write it (QA: "team", no `#`).
        let conversation = ConversationInfo(
            peer: nil, group: group, unread: 0, lastMessage: nil, archived: true,
            updatedAt: message.createdAt)
        #expect(GroupText.conversationLabel(conversation) == "#" + group.name)
    }

    /// `read` of every conversation: a group's messages under `#name` with each sender, not
    /// under the sender's 1:1 header; `search` names the group beside the sender.
    @Test func readAndSearchShowAGroupMessageInItsGroup() {
        let groupID = String(repeating: "a", count: 32)
        let group = GroupInfo(
            id: groupID, name: "ops", members: [CLIFixtures.bob, CLIFixtures.carol], version: 2)
        var inGroup = CLIFixtures.incoming(3, "ops news", at: "2026-11-21T11:58:00Z")
        inGroup.group = groupID
        inGroup.sender = CLIFixtures.bobID
        let direct = CLIFixtures.incoming(4, "direct news", at: "2026-11-21T11:59:00Z")
        let peers = [CLIFixtures.bobID: CLIFixtures.bob]
        let read = ReadView.render(
            ReadResult(messages: [inGroup, direct]), peers: peers, groups: [groupID: group],
            peerArgument: nil, now: CLIFixtures.now, zone: utc, style: .plain)
        let lines = read.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 8, "\(read)")
        #expect(lines.first == "#ops  2 members", "\(read)")
        // Labels are as wide as the longest of those shown (found by QA: `read` padded
        // them to the longest name of every peer it knew).
        #expect(lines[2].hasPrefix("11:58  Bob ") && lines[2].hasSuffix("  ops news"), "\(read)")
        #expect(
            lines[4...].joined(separator: "\n")
                == "bob@laptop (Bob)  BOBB-2345  online, away\n" + "── Today ──\n"
                + "11:59  Bob  direct news\n", "\(read)")

        var own = CLIFixtures.outgoing(5, "ops plan", .delivered, at: "2026-11-21T11:57:00Z")
        own.group = groupID
        let found = SearchView.render(
            SearchResult(messages: [inGroup, own]), query: "ops", peers: peers,
            groups: [groupID: group], now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(found == "2m  Bob in #ops: ops news\n" + "3m  You → #ops: ops plan\n", "\(found)")
    }

    @Test func hostileNamesAndTextsCannotDriveTheTerminal() {
        let text = inbox([
            conversation(
                name: "evil\u{1B}]0;pwned\u{07}", alias: "\u{202E}kcab",
                text: "line one\nline two \u{1B}[2J")
        ])
        #expect(!text.contains("\u{1B}") && !text.contains("\u{07}") && !text.contains("\u{202E}"))
        #expect(text.contains("evil\\u{1B}]0;pwned\\u{7}"))
        #expect(text.contains("line one line two \\u{1B}[2J"))
        #expect(text.split(separator: "\n").count == 1)
    }

    @Test func previewIsCutAtSixtyCharactersOnACharacterBoundary() {
        let long = String(repeating: "é", count: 59) + "👍🏽 and more"
        let text = inbox([conversation(name: "bob", text: long)])
        let expected = String(repeating: "é", count: 59) + "…"
        #expect(text == "● bob  \(expected)  now\n")
    }

    @Test(arguments: [
        (MessageStatus.queued, "…"), (.sent, "✓"), (.delivered, "✓✓"), (.read, "✓✓ read"),
        (.failed, "✗"),
    ])
    func ownMessagesShowYouAndTheirMark(status: MessageStatus, mark: String) {
        let text = inbox([
            conversation(name: "bob", text: "hi", direction: .outgoing, status: status)
        ])
        #expect(text == "● bob  You: hi \(mark)  now\n")
    }

    @Test func presenceDotsAndColour() {
        let text = inbox(
            [
                conversation(name: "a", presence: .online, text: "x"),
                conversation(name: "b", presence: .offline, text: "x"),
                conversation(name: "c", presence: .discovering, text: "x"),
            ], style: .colored)
        #expect(text.contains("\u{1B}[32m●\u{1B}[0m"))
        #expect(text.contains("\u{1B}[2m○\u{1B}[0m"))
        #expect(text.contains("\u{1B}[33m◌\u{1B}[0m"))
    }

    @Test func emptyInboxHintsHowToStart() {
        let text = inbox([])
        #expect(text.contains("lanchat send PEER TEXT"))
        #expect(text.contains("lanchat who"))
        // Empty because everything is archived: not "no conversations yet".
        let hidden = InboxView.render(
            InboxResult(conversations: []), query: nil, archived: false, archivedCount: 2,
            now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            hidden
                == "No conversations in the inbox; 2 conversations are archived: "
                + "lanchat inbox --archived\n")
        // Empty because the one conversation is a pending message request (QA).
        let request = InboxView.render(
            InboxResult(conversations: []), query: nil, archived: false, requestCount: 1,
            now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            request == "No conversations in the inbox; 1 message request waits: lanchat contacts\n")
        // Beside conversations, the requests are said after them (found by QA: only when
        // the inbox was empty).
        let beside = InboxView.render(
            InboxResult(conversations: [conversation(name: "bob", text: "hi")]), query: nil,
            archived: false, requestCount: 2, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(beside.hasSuffix("\n2 message requests wait: lanchat contacts\n"), "\(beside)")
        #expect(beside.contains("bob"), "\(beside)")
    }

    // MARK: Search

    func highlight(_ text: String, _ query: String) -> String {
        SearchView.highlighted(text, terms: SearchTerms(query), style: .colored)
    }

    func marked(_ text: String) -> String { "\u{1B}[1;7m\(text)\u{1B}[0m" }

    @Test func highlightIsCaseAndAccentInsensitive() {
        #expect(highlight("Le CAFÉ est ouvert", "cafe") == "Le \(marked("CAFÉ")) est ouvert")
        #expect(highlight("naïve Naive", "NAIVE") == "\(marked("naïve")) \(marked("Naive"))")
    }

    /// Each Chinese, Japanese or Korean character is a word to the index: what search finds
    /// inside a run of them is highlighted there (left by the CJK search change).
    @Test func highlightFindsCJKWordsInsideTheirText() {
        #expect(highlight("明日東京で会いましょう", "東京") == "明日\(marked("東京"))で会いましょう")
        #expect(highlight("서울에서 만나요", "서울") == "\(marked("서울"))에서 만나요")
        #expect(highlight("Swiftで書く", "swift") == "\(marked("Swift"))で書く")
        // A Latin word inside a Latin word is still not one.
        #expect(highlight("swiftly", "swift") == "swiftly")
    }

    /// An emoji is a word to the index (`EmojiText`): found against a word, or with its
    /// variation selector, it is highlighted there.
    @Test func highlightFindsEmoji() {
        #expect(highlight("thumbs👍up", "👍") == "thumbs\(marked("👍"))up")
        #expect(highlight("love ❤️", "❤") == "love \(marked("❤️"))")
        #expect(highlight("party 🎉🎉", "🎉") == "party \(marked("🎉🎉"))")
    }

    @Test func highlightMatchesWholeWordsPrefixesAndPhrases() {
        // "is" inside "this" is not a match of the word "is".
        #expect(highlight("this is it", "is") == "this \(marked("is")) it")
        #expect(
            highlight("deploying the deployment", "deploy*")
                == "\(marked("deploying")) the \(marked("deployment"))")
        #expect(
            highlight("the build is green, build green", "\"build is green\"")
                == "the \(marked("build is green")), build green")
        #expect(SearchTerms("a AND \"b  c\" d* OR").terms.map(\.text) == ["a", "b c", "d"])
    }

    /// A group message that failed to a member says why, as a 1:1 message does.
    @Test func aGroupMessagesFailureSaysWhy() {
        var own = CLIFixtures.outgoing(2, "ship it", .failed, at: "2026-11-21T12:02:00Z")
        own.group = String(repeating: "a", count: 32)
        own.failReason = "blocked; unblock to send"
        own.recipients = [
            RecipientInfo(peer: "B", status: .delivered),
            RecipientInfo(peer: "C", status: .failed),
        ]
        #expect(
            HistoryView.groupMark(own, style: .plain)
                == "✓✓ 1/2 ✗ 1 failed: blocked; unblock to send")
    }

    /// An own group message with a copy per status, to members B, C, ….
    static func ownGroupMessage(
        _ text: String, _ status: MessageStatus, copies: [MessageStatus]
    ) -> MessageInfo {
        var own = CLIFixtures.outgoing(3, text, status, at: "2026-11-21T12:02:00Z")
        own.group = String(repeating: "a", count: 32)
        own.recipients = copies.enumerated().map { index, copy in
            RecipientInfo(peer: String(UnicodeScalar(UInt8(66 + index))), status: copy)
        }
        return own
    }

    /// While no member has it, a group message's tick is where its copies are: a double tick
    /// says delivered (found by QA: `✓✓ 0/2`).
    @Test func aGroupMessageNobodyHasYetHasNoDoubleTick() {
        var own = Self.ownGroupMessage("soon", .queued, copies: [.queued, .queued])
        #expect(HistoryView.groupMark(own, style: .plain) == "… 0/2")
        own.recipients?[0].status = .sent
        #expect(HistoryView.groupMark(own, style: .plain) == "✓ 0/2")
        own.recipients?[1].status = .delivered
        #expect(HistoryView.groupMark(own, style: .plain) == "✓✓ 1/2")
    }

    /// An own group message's inbox preview counts its members, as `history` does (found by
    /// QA: only "✓✓").
    @Test func anInboxPreviewOfAnOwnGroupMessageCountsItsMembers() {
        let own = Self.ownGroupMessage("to all", .delivered, copies: [.read, .delivered])
        #expect(InboxView.preview(own, style: .plain) == "You: to all ✓✓ 2/2 (1 read)")
    }

    /// An inbox preview starts at the first thing written, not at leading blank lines.
    @Test func anInboxPreviewSkipsLeadingWhiteSpace() {
        let message = CLIFixtures.incoming(1, "\n\n\t\ttabbed start", at: "2026-11-21T12:03:00Z")
        #expect(InboxView.preview(message, style: .plain) == "tabbed start")
    }

    /// A long query that matches nothing is not repeated whole (found by QA: 1 KB of it).
    @Test func aLongQueryIsCutInTheNoMatchLine() {
        let text = SearchView.render(
            SearchResult(messages: []), query: String(repeating: "q", count: 1000), peers: [:],
            now: CLIFixtures.at("2026-11-21T12:03:00Z"), zone: utc, style: .plain)
        #expect(text == "No messages match '" + String(repeating: "q", count: 79) + "…'.\n")
    }

    @Test func noHighlightWithoutColour() {
        let text = SearchView.highlighted("cafe", terms: SearchTerms("cafe"), style: .plain)
        #expect(text == "cafe")
    }

    // MARK: Watch

    func watchLine(_ event: EventInfo) -> String {
        WatchView.line(event, names: [:], now: CLIFixtures.now, zone: utc, style: .plain)
    }

    @Test func watchLinesSayWhatHappened() {
        let at = CLIFixtures.at("2026-11-21T12:03:00Z")
        var peer = CLIFixtures.bob
        peer.alias = nil
        peer.name = "bob"
        let received = EventInfo(
            cursor: "1", type: .messageReceived, at: at,
            message: CLIFixtures.incoming(1, "deploy done", at: "2026-11-21T12:03:00Z"),
            peer: peer)
        #expect(watchLine(received) == "12:03 bob: deploy done\n")
        let delivered = EventInfo(
            cursor: "2", type: .messageStatus, at: at,
            message: CLIFixtures.outgoing(2, "ship it", .delivered, at: "2026-11-21T12:02:00Z"),
            peer: peer)
        #expect(watchLine(delivered) == "12:03 ✓✓ delivered to bob: ship it\n")
        peer.status = .available
        let online = EventInfo(cursor: "3", type: .peerPresence, at: at, peer: peer)
        #expect(watchLine(online) == "12:03 bob is online: lunch\n")
        let typing = EventInfo(cursor: "4", type: .peerTyping, at: at, peer: peer, typing: true)
        #expect(watchLine(typing) == "12:03 bob is typing…\n")
        // A peer met a moment ago, before its HELLO named it: its key tag, not a blank.
        peer.name = ""
        let met = EventInfo(cursor: "5", type: .peerNew, at: at, peer: peer)
        #expect(watchLine(met) == "12:03 new peer BOBB-2345\n")
        let first = EventInfo(cursor: "6", type: .peerPresence, at: at, peer: peer)
        #expect(watchLine(first) == "12:03 BOBB-2345 is online: lunch\n")
        // The line of a presence event that finds the peer as `after`, seen before as `before`.
        func presenceLine(_ after: PeerInfo, seenAs before: PeerInfo) -> String {
            WatchView.line(
                EventInfo(cursor: "7", type: .peerPresence, at: at, peer: after),
                names: [before.id: before], now: CLIFixtures.now, zone: utc, style: .plain)
        }
        // Its first HELLO names it: the next presence event says so, not "online" again.
        var named = peer
        named.name = "bob"
        #expect(presenceLine(named, seenAs: peer) == "12:03 BOBB-2345 now calls itself bob\n")
        // With an alias of ours, the alias stays: said beside the old name (found by QA:
        // "Cee is now called Cee", "G7UN-6Q3G is now called Davy").
        var aliased = named
        aliased.alias = "Cee"
        var renamed = aliased
        renamed.name = "carol3"
        #expect(
            presenceLine(renamed, seenAs: aliased) == "12:03 Cee (bob) now calls itself carol3\n")
        var unnamedAliased = peer
        unnamedAliased.alias = "Davy"
        var helloAliased = unnamedAliased
        helloAliased.name = "dave"
        #expect(
            presenceLine(helloAliased, seenAs: unnamedAliased)
                == "12:03 Davy (BOBB-2345) now calls itself dave\n")
    }

    /// Issue 13: `group.changed` names who changed which group; a group message names its
    /// group before the sender.
    @Test func watchLinesNameTheGroup() {
        let at = CLIFixtures.at("2026-11-21T12:03:00Z")
        let group = GroupInfo(
            id: String(repeating: "a", count: 32), name: "ops",
            members: [CLIFixtures.bob, CLIFixtures.carol], version: 3)
        var changed = EventInfo(cursor: "1", type: .groupChanged, at: at, peer: CLIFixtures.bob)
        changed.group = group
        #expect(watchLine(changed) == "12:03 group #ops changed (2 members), from Bob\n")
        // A pending request says so, as `groups` does (found by QA: only --json did).
        var request = changed
        request.group?.request = true
        #expect(
            watchLine(request)
                == "12:03 group #ops changed (2 members), from Bob; a request: lanchat accept #ops\n"
        )
        var received = EventInfo(
            cursor: "2", type: .messageReceived, at: at,
            message: CLIFixtures.incoming(1, "deploy done", at: "2026-11-21T12:03:00Z"),
            peer: CLIFixtures.bob)
        received.group = group
        #expect(watchLine(received) == "12:03 #ops Bob: deploy done\n")
    }

    @Test func aMessageEventWithoutPeerUsesTheNameSeenBefore() {
        let event = EventInfo(
            cursor: "1", type: .messageReceived, at: CLIFixtures.at("2026-11-21T12:03:00Z"),
            message: CLIFixtures.incoming(1, "hi", at: "2026-11-21T12:03:00Z"))
        let line = WatchView.line(
            event, names: [CLIFixtures.bobID: CLIFixtures.bob], now: CLIFixtures.now, zone: utc,
            style: .plain)
        #expect(line == "12:03 Bob: hi\n")
    }

    /// A replayed event of another day says which (found by QA: one of October 2025 read
    /// `16:59`, as one of today).
    @Test func anEventOfAnotherDayIsStampedWithItsDay() {
        var stamps: [String] = []
        for at in [
            "2026-11-21T09:00:00Z", "2026-11-20T23:59:00Z", "2026-11-17T08:30:00Z",
            "2026-11-02T10:00:00Z", "2025-10-24T16:59:00Z",
        ] {
            let event = EventInfo(
                cursor: "1", type: .messageReceived, at: CLIFixtures.at(at),
                message: CLIFixtures.incoming(1, "hi", at: at))
            let line = WatchView.line(
                event, names: [CLIFixtures.bobID: CLIFixtures.bob], now: CLIFixtures.now,
                zone: utc, style: .plain)
            stamps.append(String(line.prefix { $0 != "B" }))
        }
        #expect(
            stamps == [
                "09:00 ", "Yesterday 23:59 ", "Tue 08:30 ", "11/2 10:00 ", "10/24/2025 16:59 ",
            ],
            "\(stamps)")
    }

    /// A replayed event whose message was purged since carries no message: the line says
    /// whose it was and that it is gone, not a blank text (QA).
    @Test func watchLinesOfAMessageDeletedSince() {
        let at = CLIFixtures.at("2026-11-21T12:03:00Z")
        let received = EventInfo(
            cursor: "1", type: .messageReceived, at: at, peer: CLIFixtures.bob)
        #expect(watchLine(received) == "12:03 Bob: (deleted since)\n")
        let status = EventInfo(cursor: "2", type: .messageStatus, at: at, peer: CLIFixtures.bob)
        #expect(watchLine(status) == "12:03 a message with Bob changed status (deleted since)\n")
    }

    @Test func watchLinesKeepHostileTextOnOneLine() {
        let event = EventInfo(
            cursor: "1", type: .messageReceived, at: CLIFixtures.at("2026-11-21T12:03:00Z"),
            message: CLIFixtures.incoming(1, "a\nb\u{1B}[31m", at: "2026-11-21T12:03:00Z"),
            peer: CLIFixtures.bob)
        #expect(watchLine(event) == "12:03 Bob: a b\\u{1B}[31m\n")
    }
}

/// `who` and `inbox` on a narrow terminal: each line fits its width (the address, status and
/// name give up width in `who`, the preview in `inbox`, cut with `…`); piped, nothing is cut.
@Suite struct NarrowTerminalRenderingTests {
    let utc = FixedUTCOffset(seconds: 0)

    static func widest(_ text: String) -> Int {
        text.split(separator: "\n").map { DisplayWidth.of($0) }.max() ?? 0
    }

    /// A peer added by id whose alias was removed has no name until its first HELLO: its key
    /// tag stands in wherever a name is shown (QA: blank cells, and "You → :" in search).
    @Test func aPeerWithoutANameShowsItsKeyTag() {
        let nameless = PeerInfo(
            id: String(repeating: "e", count: 52), keyTag: "EEEE-2345", name: "",
            presence: .offline)
        var message = CLIFixtures.outgoing(1, "queued for you", .queued, at: "2026-11-21T11:58:00Z")
        message.peer = nameless.id
        let who = WhoView.render(
            WhoResult(peers: [nameless]), query: nil, all: true, now: CLIFixtures.now,
            zone: utc, style: .plain)
        #expect(who.split(separator: "\n").last?.hasPrefix("-     EEEE-2345") == true, "\(who)")
        let inboxText = InboxView.render(
            InboxResult(conversations: [
                ConversationInfo(
                    peer: nameless, unread: 0, lastMessage: message, archived: false,
                    updatedAt: message.createdAt)
            ]), query: nil, archived: false, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(inboxText.hasPrefix("○ EEEE-2345  You: queued for you"), "\(inboxText)")
        let found = SearchView.render(
            SearchResult(messages: [message]), query: "queued", peers: [nameless.id: nameless],
            now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(found == "2m  You → EEEE-2345: queued for you\n", "\(found)")
        let history = HistoryView.render(
            HistoryResult(
                peer: nameless,
                messages: [CLIFixtures.incoming(2, "hello", at: "2026-11-21T11:59:00Z")],
                hasOlder: false),
            now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(history.hasPrefix("EEEE-2345  offline\n"), "\(history)")
        #expect(history.contains("11:59  EEEE-2345  hello"), "\(history)")
    }

    @Test func whoFitsTheTerminalAndKeepsTheKeyTag() {
        let result = WhoResult(peers: [CLIFixtures.bob, CLIFixtures.carol, CLIFixtures.dave])
        let piped = WhoView.render(
            result, query: nil, all: true, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(Self.widest(piped) > 80)
        for width in [100, 80, 72, 50, 40] {
            let text = WhoView.render(
                result, query: nil, all: true, now: CLIFixtures.now, zone: utc, style: .plain,
                width: width)
            #expect(Self.widest(text) <= width, "\(width):\n\(text)")
            #expect(text.contains("CARO-L234") && text.contains("offline"))
            #expect(text.contains("unverified") == (width >= 50))
        }
        let narrow = WhoView.render(
            result, query: nil, all: true, now: CLIFixtures.now, zone: utc, style: .plain,
            width: 80)
        #expect(narrow.contains("192.168…"), "\(narrow)")
        // Wide enough: as piped.
        let wide = WhoView.render(
            result, query: nil, all: true, now: CLIFixtures.now, zone: utc, style: .plain,
            width: 200)
        #expect(wide == piped)
    }

    @Test func inboxCutsThePreviewToFit() {
        var peer = CLIFixtures.bob
        peer.alias = nil
        var message = CLIFixtures.incoming(
            1, String(repeating: "long words here ", count: 8), at: "2026-11-21T11:59:30Z")
        message.direction = .outgoing
        message.status = .delivered
        let conversation = ConversationInfo(
            peer: peer, unread: 3, lastMessage: message, archived: false,
            updatedAt: message.createdAt)
        let result = InboxResult(conversations: [conversation])
        let piped = InboxView.render(
            result, query: nil, archived: false, now: CLIFixtures.now, zone: utc, style: .plain)
        for width in [60, 45] {
            let text = InboxView.render(
                result, query: nil, archived: false, now: CLIFixtures.now, zone: utc,
                style: .plain, width: width)
            #expect(Self.widest(text) <= width, "\(width): \(text)")
            #expect(text.contains("You: long") && text.contains("… ✓✓"), "\(text)")
        }
        // 30 columns (QA: lines of 34): the name column gives way too, down to 6.
        let narrow = InboxView.render(
            result, query: nil, archived: false, now: CLIFixtures.now, zone: utc,
            style: .plain, width: 30)
        #expect(Self.widest(narrow) <= 30, "\(narrow)")
        #expect(narrow.contains("You: l") && narrow.contains("✓✓"), "\(narrow)")
        #expect(
            InboxView.render(
                result, query: nil, archived: false, now: CLIFixtures.now, zone: utc,
                style: .plain, width: 200) == piped)
    }

    /// Wide characters take two columns: rows stay aligned and within the width.
    @Test func wideCharactersCountTheirTwoColumns() {
        var wide = CLIFixtures.carol
        wide.name = "Günther 日本語テスト 🎉 very long display name here"
        let result = WhoResult(peers: [CLIFixtures.bob, wide])
        let piped = WhoView.render(
            result, query: nil, all: true, now: CLIFixtures.now, zone: utc, style: .plain)
        // Aligned: the key tags start in the same column on every row.
        let starts = piped.split(separator: "\n").dropFirst().compactMap { row in
            (row.range(of: "BOBB-2345") ?? row.range(of: "CARO-L234")).map {
                DisplayWidth.of(row[..<$0.lowerBound])
            }
        }
        #expect(starts.count == 2)
        #expect(Set(starts).count == 1, "\(piped)")
        let fitted = WhoView.render(
            result, query: nil, all: true, now: CLIFixtures.now, zone: utc, style: .plain,
            width: 70)
        #expect(Self.widest(fitted) <= 70, "\(fitted)")

        var peer = CLIFixtures.bob
        peer.alias = nil
        peer.name = "日本語の名前がとても長いピア"
        let message = CLIFixtures.incoming(
            1, "日本語のメッセージはとても長いのでプレビューが切られるはずです。まだ続きます。",
            at: "2026-11-21T11:59:30Z")
        let inbox = InboxResult(conversations: [
            ConversationInfo(
                peer: peer, unread: 1, lastMessage: message, archived: false,
                updatedAt: message.createdAt)
        ])
        for width in [80, 60, 40] {
            let text = InboxView.render(
                inbox, query: nil, archived: false, now: CLIFixtures.now, zone: utc,
                style: .plain, width: width)
            #expect(Self.widest(text) <= width, "\(width): \(text)")
        }
    }

    /// Two conversations under one name are told apart by their key tags.
    @Test func inboxNamesTheKeyTagWhenTwoConversationsShareAName() {
        var old = CLIFixtures.bob
        old.alias = nil
        var new = CLIFixtures.carol
        new.name = old.name
        new.alias = nil
        let message = CLIFixtures.incoming(1, "hi", at: "2026-11-21T11:59:30Z")
        let text = InboxView.render(
            InboxResult(conversations: [
                ConversationInfo(
                    peer: new, unread: 0, lastMessage: message, archived: false,
                    updatedAt: message.createdAt),
                ConversationInfo(
                    peer: old, unread: 0, lastMessage: message, archived: false,
                    updatedAt: message.createdAt),
            ]), query: nil, archived: false, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(text.contains("\(old.name) (\(old.keyTag))"), "\(text)")
        #expect(text.contains("\(new.name) (\(new.keyTag))"), "\(text)")
    }
}
