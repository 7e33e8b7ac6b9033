import LanChatCLI
import LanChatControl
import Testing

/// Text rendering as pure functions of a result, a fixed "now", a fixed zone and a style.
@Suite struct RenderingTests {
    let utc = FixedUTCOffset(seconds: 0)

    @Test func whoTable() {
        let text = WhoView.render(
            WhoResult(peers: [CLIFixtures.bob, CLIFixtures.carol, CLIFixtures.dave]), query: nil,
            all: true, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            text == """
                NAME              KEY        PRESENCE      STATUS                  TRUST       LAST SEEN  ADDRESS
                bob@laptop (Bob)  BOBB-2345  online, away  lunch                   verified    now        192.168.1.20:41000 +1
                carol@desk        CARO-L234  offline       on holiday back monday  unverified  Yesterday  192.168.1.30:41000
                dave              DAVE-2345  discovering   -                       blocked     never      -

                """)
    }

    @Test func whoWithoutPeersExplainsWhereToLook() {
        let text = WhoView.render(
            WhoResult(peers: []), query: nil, all: false, now: CLIFixtures.now, zone: utc,
            style: .plain)
        #expect(text.hasPrefix("No peers online. 'lanchat who --all' also lists offline peers.\n"))
        // Both ways a peer is found, --no-mdns named (QA: "found over mDNS" under it).
        #expect(text.contains("mDNS (unless lanchatd runs with --no-mdns)"))
        #expect(text.contains("--peer HOST:PORT") && text.contains("lanchat doctor"))
        // With the daemon's mDNS state, the hint says which way applies (found by QA).
        func hint(_ avahi: String) -> String {
            WhoView.render(
                WhoResult(peers: []), query: nil, all: false, now: CLIFixtures.now, zone: utc,
                style: .plain, avahi: avahi)
        }
        #expect(hint("disabled").contains("lanchatd runs with --no-mdns: it looks for no peer"))
        #expect(hint("failed").contains("Avahi is not running (lanchatd's mDNS is failed)"))
        #expect(hint("running").contains("Peers are found over mDNS and at the addresses"))
        for avahi in ["disabled", "failed", "running"] {
            #expect(!hint(avahi).contains("unless"), "\(avahi)")
            #expect(hint(avahi).contains("--peer HOST:PORT"), "\(avahi)")
        }
    }

    @Test func whoWithAQueryThatMatchesNothing() {
        let text = WhoView.render(
            WhoResult(peers: []), query: "zed", all: false, now: CLIFixtures.now, zone: utc,
            style: .plain)
        #expect(text == "No peer matches 'zed'. Add --all to include offline peers.\n")
    }

    @Test func colourOnlyWhenAsked() {
        let result = WhoResult(peers: [CLIFixtures.bob])
        let plain = WhoView.render(
            result, query: nil, all: false, now: CLIFixtures.now, zone: utc, style: .plain)
        let colored = WhoView.render(
            result, query: nil, all: false, now: CLIFixtures.now, zone: utc, style: .colored)
        #expect(!plain.contains("\u{1B}["))
        #expect(colored.contains("\u{1B}[33monline, away\u{1B}[0m"))
        #expect(colored.replacing(/\x1B\[[0-9]+m/, with: "") == plain)
    }

    @Test func statusBlock() {
        let text = StatusView.render(CLIFixtures.status, style: .plain)
        #expect(
            text == """
                name       alice@box
                id         aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
                key tag    ALIC-EAAA
                presence   busy: deep work
                daemon     lanchatd 0.1.0, control API 1, up 2h 3m
                listening  0.0.0.0:41000, [::]:41000
                avahi      connecting (waiting for avahi-daemon)
                peers      2 online
                queued     3
                unread     4
                socket     /run/user/1000/lanchat/lanchatd.sock
                data       /home/alice/.local/share/lanchat

                """)
    }

    @Test func statusWarnsAboutAnotherAPIVersion() {
        var status = CLIFixtures.status
        status.apiVersion = 2
        #expect(StatusView.render(status, style: .plain).contains("speaks control API 2"))
    }

    @Test func presenceChangeLine() {
        #expect(
            StatusView.presenceChanged(CLIFixtures.status, style: .plain)
                == "alice@box is now busy: deep work\n")
    }

    @Test func historyWithDaySeparatorsAndMarks() {
        let result = HistoryResult(
            peer: CLIFixtures.bob,
            messages: [
                CLIFixtures.outgoing(1, "hi bob", .read, at: "2026-11-16T09:00:00Z"),
                CLIFixtures.incoming(1, "hey\nwhat's up?", at: "2026-11-20T10:00:00Z"),
                CLIFixtures.outgoing(2, "all good", .delivered, at: "2026-11-21T06:10:00Z"),
                CLIFixtures.outgoing(3, "sent one", .sent, at: "2026-11-21T06:11:00Z"),
                CLIFixtures.outgoing(4, "waiting", .queued, at: "2026-11-21T06:12:00Z"),
                CLIFixtures.outgoing(
                    5, "too late", .failed, at: "2026-11-21T06:13:00Z", reason: "rejected"),
            ], hasOlder: false)
        let text = HistoryView.render(result, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            text == """
                bob@laptop (Bob)  BOBB-2345  online, away
                (nothing older: this is the start of the conversation)
                ── Monday 16 November ──
                09:00  You  hi bob  ✓✓ read
                ── Yesterday ──
                10:00  Bob  hey
                            what's up?
                ── Today ──
                06:10  You  all good  ✓✓
                06:11  You  sent one  ✓
                06:12  You  waiting  …
                06:13  You  too late  ✗ failed: rejected

                """)
    }

    @Test func historyPointsAtOlderMessages() {
        let result = HistoryResult(
            peer: CLIFixtures.carol,
            messages: [CLIFixtures.incoming(9, "x", at: "2026-11-21T11:00:00Z")], hasOlder: true)
        let text = HistoryView.render(result, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            text.contains(
                "(older messages: lanchat history CARO-L234 --before 10000000-0000-4000-8000-000000000009)"
            ))
    }

    /// A page that is not the latest says how to page on, forwards, from its last message.
    @Test func historyPointsAtNewerMessages() {
        var result = HistoryResult(
            peer: CLIFixtures.carol,
            messages: [CLIFixtures.incoming(9, "x", at: "2026-11-21T11:00:00Z")], hasOlder: true,
            hasNewer: true)
        let newer =
            "(newer messages: lanchat history CARO-L234 --after 10000000-0000-4000-8000-000000000009)\n"
        var text = HistoryView.render(
            result, paged: true, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(text.hasSuffix("x\n" + newer))
        result.hasNewer = false
        text = HistoryView.render(
            result, paged: true, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(!text.contains("newer"))
    }

    @Test func historyUsesTheLocalDay() {
        let result = HistoryResult(
            peer: CLIFixtures.bob,
            messages: [CLIFixtures.incoming(1, "late", at: "2026-11-20T23:30:00Z")], hasOlder: false
        )
        let east = HistoryView.render(
            result, now: CLIFixtures.now, zone: FixedUTCOffset(seconds: 3600), style: .plain)
        #expect(east.contains("── Today ──\n00:30  Bob  late\n"))
    }

    @Test func emptyHistory() {
        let result = HistoryResult(peer: CLIFixtures.carol, messages: [], hasOlder: false)
        let text = HistoryView.render(result, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(text.hasSuffix("No messages yet. Send one: lanchat send CARO-L234 TEXT\n"))
        // Asked with --before or --after: an empty range, not an empty conversation.
        let paged = HistoryView.render(
            result, paged: true, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            paged.hasSuffix(
                "(nothing older: this is the start of the conversation)\nNo messages in this range.\n"
            ))
        // An empty range with older messages beyond it.
        let between = HistoryResult(
            peer: CLIFixtures.carol, messages: [], hasOlder: true, hasNewer: true)
        let middle = HistoryView.render(
            between, paged: true, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            middle.hasSuffix("No messages in this range.\n") && !middle.contains("nothing older"))
    }

    /// A group's history points at older messages as a 1:1 history does, and an empty range
    /// is not "no messages yet".
    @Test func groupHistoryPointsAtOlderMessagesToo() {
        let group = GroupInfo(
            id: String(repeating: "a", count: 32), name: "ops",
            members: [CLIFixtures.bob, CLIFixtures.carol], version: 2)
        var message = CLIFixtures.incoming(9, "x", at: "2026-11-21T11:00:00Z")
        message.group = group.id
        message.sender = CLIFixtures.bobID
        var page = HistoryResult(peer: CLIFixtures.bob, messages: [message], hasOlder: true)
        page.group = group
        let text = HistoryView.render(page, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            text.contains(
                "(older messages: lanchat history '#ops' --before 10000000-0000-4000-8000-000000000009)"
            ), "\(text)")
        var empty = HistoryResult(peer: CLIFixtures.bob, messages: [], hasOlder: false)
        empty.group = group
        #expect(
            HistoryView.render(empty, paged: true, now: CLIFixtures.now, zone: utc, style: .plain)
                == "#ops  2 members\n(nothing older: this is the start of the conversation)\n"
                + "No messages in this range.\n")
        #expect(
            HistoryView.render(empty, now: CLIFixtures.now, zone: utc, style: .plain)
                == "#ops  2 members\nNo messages yet. Send one: lanchat send '#ops' TEXT\n")
        // A group we left: said so, and no hint to send where it would fail (found by QA).
        var left = empty
        left.group?.left = true
        #expect(
            HistoryView.render(left, now: CLIFixtures.now, zone: utc, style: .plain)
                == "#ops  2 members  (you are no longer a member)\nNo messages.\n")
        // A group of one says so in the singular, as chat, groups and watch do (QA: "#solo
        // 1 members").
        empty.group?.members.removeLast()
        #expect(
            HistoryView.render(empty, now: CLIFixtures.now, zone: utc, style: .plain)
                .hasPrefix("#ops  1 member\n"))
    }

    @Test func peerTextCannotDriveTheTerminal() {
        #expect(
            HistoryView.displayable("a\u{1B}[2Jb\r\nc\td\u{7}") == #"a\u{1B}[2Jb"# + "\nc\td"
                + #"\u{7}"#)
        let sneaky = PeerInfo(
            id: "x", keyTag: "XXXX-XXXX", name: "evil\u{1B}]0;pwned\u{7}", presence: .online)
        let text = WhoView.render(
            WhoResult(peers: [sneaky]), query: nil, all: false, now: CLIFixtures.now, zone: utc,
            style: .plain)
        #expect(!text.contains("\u{1B}"))
    }

    // MARK: Hostile text (one rule: TerminalText, through terminalSafe/truncated)

    /// ESC, BEL, an OSC title sequence, C1 CSI, DEL and a right-to-left override.
    static let hostile = "x\u{1B}]0;pwned\u{7}\u{9B}2J\u{7F}\u{202E}gnp.exe"
    static let hostileShown = #"x\u{1B}]0;pwned\u{7}\u{9B}2J\u{7F}\u{202E}gnp.exe"#
    static let bidiControls: [Unicode.Scalar] = [
        "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}",
        "\u{2068}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}",
    ]

    /// Nothing a terminal acts on: no C0 but the layout's, no DEL, no C1, no bidi control.
    static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                || bidiControls.contains(scalar)
        }
    }

    @Test func everyBidiControlIsEscaped() {
        for scalar in Self.bidiControls {
            let shown = terminalSafe("a" + String(scalar) + "b")
            #expect(shown == "a\\u{\(String(scalar.value, radix: 16, uppercase: true))}b")
        }
        #expect(terminalSafe("ok: é ✓ 日本") == "ok: é ✓ 日本")
        #expect(terminalSafe("two\nlines\tand\r\nmore") == "two lines and more")
    }

    /// Two names that differ only by an invisible character do not look alike (found by QA);
    /// message text keeps them (Thai breaks lines at U+200B), and emoji keep their joiners.
    @Test func invisibleCharactersAreEscapedInNamesOnly() {
        for scalar in [
            "\u{AD}", "\u{180E}", "\u{200B}", "\u{2060}", "\u{2064}", "\u{FEFF}",
            // The Hangul fillers and the blank Braille pattern (found by QA: `x\u{3164}`
            // beside `x` in `groups`).
            "\u{3164}", "\u{115F}", "\u{FFA0}", "\u{2800}",
        ] {
            let value = String(scalar.unicodeScalars.first?.value ?? 0, radix: 16, uppercase: true)
            #expect(terminalSafe("zw" + scalar + "space") == "zw\\u{\(value)}space")
            #expect(terminalSafeBlock("zw" + scalar + "space") == "zw" + scalar + "space")
        }
        #expect(truncated("zw\u{200B}space", to: 40) == "zw\\u{200B}space")
        let family = "👨\u{200D}👩\u{200D}👧 team"
        #expect(terminalSafe(family) == family)
        // A variation selector chooses an emoji's look: kept.
        #expect(terminalSafe("❤\u{FE0F} team") == "❤\u{FE0F} team")
    }

    @Test func statusShowsAHostileOwnNameAndTextEscaped() {
        var status = CLIFixtures.status
        status.name = Self.hostile
        status.statusText = "away\u{1B}[5m"
        let text = StatusView.render(status, style: .plain)
        #expect(text.contains("name       " + Self.hostileShown + "\n"))
        #expect(text.contains(#"presence   busy: away\u{1B}[5m"#))
        #expect(Self.isInert(text))
        let changed = StatusView.presenceChanged(status, style: .colored)
        #expect(changed.hasPrefix(Self.hostileShown + " is now "))
    }

    @Test func whoShowsHostileNamesAliasesAndStatusTextsEscaped() {
        let sneaky = PeerInfo(
            id: "x", keyTag: "XXXX-XXXX", name: "\u{1B}]0;x\u{7}\u{202E}y", alias: "\u{202E}evil",
            presence: .online, statusText: "\u{9D}8;;http://x\u{9C}", addresses: ["h\u{1B}:1"])
        let text = WhoView.render(
            WhoResult(peers: [sneaky]), query: nil, all: false, now: CLIFixtures.now, zone: utc,
            style: .colored)
        #expect(text.contains(#"\u{1B}]0;x\u{7}\u{202E}y (\u{202E}evil)"#))
        #expect(text.contains(#"\u{9D}8;;http://x\u{9C}"#))
        #expect(text.contains(#"h\u{1B}:1"#))
        // Only the view's own colour sequences remain.
        #expect(Self.isInert(text.replacing(/\u{1B}\[[0-9;]*m/, with: "")))
        let none = WhoView.render(
            WhoResult(peers: []), query: "\u{1B}[2J", all: false, now: CLIFixtures.now, zone: utc,
            style: .plain)
        #expect(none.hasPrefix(#"No peer matches '\u{1B}[2J'."#))
    }

    @Test func historyShowsHostileNamesTextsAndReasonsEscaped() {
        var peer = CLIFixtures.bob
        peer.name = Self.hostile
        peer.alias = nil
        let result = HistoryResult(
            peer: peer,
            messages: [
                CLIFixtures.incoming(
                    1, "line one\n\u{202E}\u{1B}]2;t\u{7}", at: "2026-11-21T10:00:00Z"),
                CLIFixtures.outgoing(
                    2, "ok", .failed, at: "2026-11-21T10:01:00Z", reason: "rejected\u{1B}[31m"),
            ], hasOlder: false)
        let text = HistoryView.render(result, now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(text.contains(#"\u{202E}\u{1B}]2;t\u{7}"#))
        #expect(text.contains(#"✗ failed: rejected\u{1B}[31m"#))
        #expect(text.contains("line one\n"))
        #expect(Self.isInert(text))
    }

    @Test func errorsShowHostileMessagesAndCandidatesEscaped() {
        let error = ControlError.peerAmbiguous(
            "b",
            candidates: [
                PeerCandidate(
                    id: "i\u{7}", keyTag: "K\u{1B}", name: "\u{9B}0m\u{202E}", alias: nil),
                PeerCandidate(id: "j", keyTag: "L", name: "b\u{2066}", alias: nil),
            ])
        let text = ErrorView.render(error)
        #expect(text.contains(#"  \u{9B}0m\u{202E}  K\u{1B}  i\u{7}"#))
        #expect(Self.isInert(text))
        let failed = ErrorView.render(.failed("\u{1B}]0;x\u{7} is blocked; unblock to send"))
        #expect(failed == #"lanchat: \u{1B}]0;x\u{7} is blocked; unblock to send"# + "\n")
    }

    /// Names quoted in an error are how the user tells two apart: an invisible character in
    /// one is shown (found by QA: `#tri\u{200B}o` and `#trio` read the same), while the
    /// message keeps its lines.
    @Test func anErrorShowsTheInvisibleCharactersOfTheNamesItQuotes() {
        let error = ControlError.groupAmbiguous(
            "tri", names: ["group #trio (4223)", "group #tri\u{200B}o (11e5)"],
            hint: "write #NAME")
        #expect(
            ErrorView.render(error)
                == #"lanchat: 'tri' matches 2 groups or peers: group #trio (4223), "#
                + #"group #tri\u{200B}o (11e5); write #NAME"# + "\n")
        #expect(
            ErrorView.render(.failed("two\nlines\u{200B}"))
                == "lanchat: two\n" + #"lines\u{200B}"# + "\n")
    }

    @Test func aCutNeverSplitsAnEscape() {
        #expect(truncated("abc\u{1B}def", to: 5) == "abc…")
        #expect(truncated("ab\u{1B}", to: 10) == #"ab\u{1B}"#)
    }

    @Test func ambiguousPeerListsTheCandidates() {
        let error = ControlError.peerAmbiguous(
            "bo",
            candidates: [
                PeerCandidate(
                    id: CLIFixtures.bobID, keyTag: "BOBB-2345", name: "bob@laptop", alias: "Bob"),
                PeerCandidate(
                    id: CLIFixtures.carolID, keyTag: "CARO-L234", name: "bobby", alias: nil),
            ])
        #expect(
            ErrorView.render(error) == """
                lanchat: 'bo' matches 2 peers
                  NAME              KEY        ID
                  bob@laptop (Bob)  BOBB-2345  \(CLIFixtures.bobID)
                  bobby             CARO-L234  \(CLIFixtures.carolID)
                Give the key tag or the id to choose one.

                """)
    }

    /// No match, but names close to it: offered as such, not as matches to pick from.
    @Test func unknownPeerOffersTheClosestNames() {
        let error = ControlError.peerNotFound(
            "bobx",
            candidates: [
                PeerCandidate(
                    id: CLIFixtures.bobID, keyTag: "BOBB-2345", name: "bob@laptop", alias: "Bob")
            ])
        #expect(
            ErrorView.render(error) == """
                lanchat: no peer matches 'bobx'
                Did you mean:
                  NAME              KEY        ID
                  bob@laptop (Bob)  BOBB-2345  \(CLIFixtures.bobID)

                """)
        #expect(
            ErrorView.render(.ownNode("alice"))
                == "lanchat: 'alice' names this node itself, not a peer\n")
    }

    @Test func unknownPeerPointsAtWho() {
        #expect(
            ErrorView.render(.peerNotFound("zed"))
                == "lanchat: no peer matches 'zed'\n'lanchat who --all' lists the peers lanchatd knows.\n"
        )
        #expect(
            ErrorView.render(.peerOrGroupNotFound("zed"))
                == "lanchat: no peer or group matches 'zed'\n"
                + "'lanchat who --all' lists the peers lanchatd knows, 'lanchat groups' the groups.\n"
        )
        #expect(
            ErrorView.render(.badInput("the message is empty")) == "lanchat: the message is empty\n"
        )
        // A name that is a group's and a peer's: the message says what to write; no peer list.
        let both = ControlError.groupAmbiguous(
            "ops", names: ["group #ops (aaaa)", "peer ops (ABCD-EFGH)"], hint: "write #ops")
        #expect(ErrorView.render(both) == "lanchat: \(both.message)\n")
        // A group that matched nothing points at `lanchat groups`, not at the peers.
        #expect(
            ErrorView.render(.groupNotFound("#nosuch"))
                == "lanchat: no group matches '#nosuch'; 'lanchat groups' lists them\n")
    }

    @Test(arguments: [
        (ColorChoice.auto, true, [String: String](), true),
        (.auto, false, [:], false),
        (.auto, true, ["NO_COLOR": "1"], false),
        (.auto, true, ["NO_COLOR": ""], true),
        (.auto, true, ["TERM": "dumb"], false),
        (.always, false, ["NO_COLOR": "1"], true),
        (.never, true, [:], false),
    ])
    func colorChoice(
        choice: ColorChoice, terminal: Bool, variables: [String: String], colored: Bool
    ) {
        #expect(choice.resolve(outputIsTerminal: terminal, variables: variables).enabled == colored)
    }
}
