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
        #expect(text.contains("Avahi"))
        #expect(text.contains("--peer HOST:PORT"))
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
    }

    @Test func peerTextCannotDriveTheTerminal() {
        #expect(
            HistoryView.displayable("a\u{1B}[2Jb\r\nc\td\u{7}") == "a\u{FFFD}[2Jb\nc\td\u{FFFD}")
        let sneaky = PeerInfo(
            id: "x", keyTag: "XXXX-XXXX", name: "evil\u{1B}]0;pwned\u{7}", presence: .online)
        let text = WhoView.render(
            WhoResult(peers: [sneaky]), query: nil, all: false, now: CLIFixtures.now, zone: utc,
            style: .plain)
        #expect(!text.contains("\u{1B}"))
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

    @Test func unknownPeerPointsAtWho() {
        #expect(
            ErrorView.render(.peerNotFound("zed"))
                == "lanchat: no peer matches 'zed'\n'lanchat who --all' lists the peers lanchatd knows.\n"
        )
        #expect(
            ErrorView.render(.badInput("the message is empty")) == "lanchat: the message is empty\n"
        )
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
