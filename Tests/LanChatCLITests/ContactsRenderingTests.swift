import LanChatCLI
import LanChatControl
import Testing

/// Text of the contact commands, and the key-change marker and warning of `who` and `status`.
@Suite struct ContactsRenderingTests {
    let utc = FixedUTCOffset(seconds: 0)

    static let change = KeyChangeInfo(
        peer: PeerCandidate(
            id: CLIFixtures.carolID, keyTag: "CARO-L234", name: "carol@desk", alias: nil),
        previous: PeerCandidate(
            id: CLIFixtures.bobID, keyTag: "OLDK-EY23", name: "carol@desk", alias: nil))

    /// A peer added by id has no name until its HELLO: it goes by its alias alone, not
    /// ` (dave)`; an alias's confirmation names the peer without the new alias.
    @Test func aNamelessPeerGoesByItsAliasAndAnAliasIsConfirmedOnce() {
        var added = CLIFixtures.dave
        added.name = ""
        added.alias = "dave"
        #expect(ContactsView.label(added) == "dave (\(added.keyTag))")
        #expect(PeerText.nameWithAlias(added) == "dave")
        var renamed = CLIFixtures.bob
        renamed.name = "bob"
        renamed.alias = "Robert"
        #expect(
            ContactsView.aliasChanged(renamed)
                == "bob (\(renamed.keyTag)) is now called Robert.\n")
        renamed.alias = nil
        #expect(ContactsView.aliasChanged(renamed) == "bob (\(renamed.keyTag)) has no alias now.\n")
    }

    @Test func whoMarksTheNewKeyAndWarnsOnce() {
        let text = WhoView.render(
            WhoResult(peers: [CLIFixtures.bob, CLIFixtures.carol], keyChanges: [Self.change]),
            query: nil, all: true, now: CLIFixtures.now, zone: utc, style: .plain)
        let lines = text.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("! carol@desk") })
        #expect(lines.filter { $0.hasPrefix("bob@laptop") }.count == 1)
        #expect(
            lines.last
                == "! warning: carol@desk is now using a different key (CARO-L234; OLDK-EY23 had it before): compare safety numbers with 'lanchat verify CARO-L234'"
        )
    }

    /// The name the new key took is the earlier key's; a later name of the new key is said
    /// beside it, not in its place (found by QA: "alice is now using a different key" of a
    /// key that had taken carol's name).
    @Test func theWarningNamesTheNameThatWasTaken() {
        var renamed = Self.change
        renamed.peer.name = "alice"
        #expect(
            renamed.warning
                == "carol@desk is now using a different key (CARO-L234; OLDK-EY23 had it before; it now calls itself alice): compare safety numbers with 'lanchat verify CARO-L234'"
        )
        // Our alias for the new key is not what it calls itself (found by QA).
        var aliased = Self.change
        aliased.peer.alias = "cnew"
        #expect(
            aliased.warning
                == "carol@desk is now using a different key (CARO-L234; OLDK-EY23 had it before): compare safety numbers with 'lanchat verify CARO-L234'"
        )
    }

    @Test func statusWarnsToo() {
        var status = CLIFixtures.status
        status.keyChanges = [Self.change]
        #expect(
            StatusView.render(status, style: .plain).contains("! warning: carol@desk is now using"))
        #expect(!StatusView.render(CLIFixtures.status, style: .plain).contains("warning"))
    }

    /// Found by QA: a host making new keys under known names added a line each to `status`.
    @Test func pastFiveKeyChangesOneLineCountsTheRest() {
        var status = CLIFixtures.status
        status.keyChanges = Array(repeating: Self.change, count: 57)
        let lines = StatusView.render(status, style: .plain).split(separator: "\n")
        #expect(lines.filter { $0.contains("is now using a different key") }.count == 5)
        #expect(
            lines.contains {
                $0.hasPrefix("! warning: 52 more new keys under the name of a known peer")
            })
        status.keyChanges = Array(repeating: Self.change, count: 5)
        #expect(!StatusView.render(status, style: .plain).contains("more new key"))
    }

    @Test func verifyShowsTwelveGroupsInThreeRows() {
        let digits = String(repeating: "0123456789", count: 6)
        let text = VerifyView.render(
            VerifyResult(peer: CLIFixtures.bob, safetyNumber: digits, verified: false),
            style: .plain)
        #expect(
            text.contains(
                "  01234 56789 01234 56789\n  01234 56789 01234 56789\n  01234 56789 01234 56789\n")
        )
        #expect(text.contains("lanchat verify BOBB-2345"))
        let done = VerifyView.render(
            VerifyResult(peer: CLIFixtures.bob, safetyNumber: digits, verified: true), style: .plain
        )
        #expect(done.contains("bob@laptop (Bob) (BOBB-2345) is now verified"))
    }

    @Test func aLinkSaysWhatMovedAndWhetherTheNewKeyIsVerified() {
        let digits = String(repeating: "0123456789", count: 6)
        let previous = PeerCandidate(id: "OLD", keyTag: "OLDB-2345", name: "bob", alias: nil)
        var unverifiedBob = CLIFixtures.bob
        unverifiedBob.trust = .unverified
        let unverified = VerifyView.render(
            VerifyResult(
                peer: unverifiedBob, safetyNumber: digits, verified: false,
                linked: LinkedInfo(previous: previous, messages: 12, released: 2)),
            style: .plain)
        #expect(
            unverified
                == "bob@laptop (Bob) (BOBB-2345) now has the conversation of OLDB-2345 "
                + "(12 messages), and the 2 messages held for it go out now.\n"
                + "bob@laptop (Bob) (BOBB-2345) is unverified: compare safety numbers with "
                + "'lanchat verify BOBB-2345'.\n")
        let verified = VerifyView.render(
            VerifyResult(
                peer: CLIFixtures.bob, safetyNumber: digits, verified: true,
                linked: LinkedInfo(previous: previous, messages: 1, released: 0)),
            style: .plain)
        #expect(
            verified
                == "The safety numbers match: bob@laptop (Bob) (BOBB-2345) is now verified.\n"
                + "bob@laptop (Bob) (BOBB-2345) now has the conversation of OLDB-2345 "
                + "(1 message).\n")
        let grouped = VerifyView.render(
            VerifyResult(
                peer: CLIFixtures.bob, safetyNumber: digits, verified: false,
                linked: LinkedInfo(
                    previous: previous, messages: 1, released: 0,
                    groups: [GroupInfo(id: "g", name: "ops", members: [], version: 1)])),
            style: .plain)
        #expect(grouped.contains("OLDB-2345 is still a member of #ops"), "\(grouped)")
        #expect(grouped.contains("  lanchat group add '#ops' BOBB-2345\n"))
        #expect(grouped.contains("  lanchat group remove '#ops' OLDB-2345\n"))
    }

    /// A key that took an earlier key's name: verify says how to take that key's
    /// conversation over too, before and after the numbers are compared.
    @Test func verifyOffersTheLinkForAKeyThatTookAnEarlierName() {
        func rendered(verified: Bool) -> String {
            VerifyView.render(
                VerifyResult(
                    peer: CLIFixtures.bob, safetyNumber: String(repeating: "0123456789", count: 6),
                    verified: verified,
                    canReplace: PeerCandidate(
                        id: "OLD", keyTag: "OLDB-2345", name: "bob", alias: nil)),
                style: .plain)
        }
        let shown = rendered(verified: false)
        #expect(shown.contains("It took the name of bob (OLDB-2345).\n"), "\(shown)")
        #expect(shown.hasSuffix("  lanchat verify BOBB-2345 '<the number it shows>' --link\n"))
        #expect(shown.contains("  lanchat verify BOBB-2345 '<the number it shows>'\n"))
        // The fixed words stay within 80 columns; only names make a line longer.
        let label = ContactsView.label(CLIFixtures.bob)
        #expect(
            shown.split(separator: "\n").allSatisfy {
                $0.count - ($0.contains(label) ? label.count : 0) <= 80
            }, "\(shown)")
        let verified = rendered(verified: true)
        #expect(verified.contains("It took the name of bob (OLDB-2345)"), "\(verified)")
        #expect(verified.hasSuffix("  lanchat verify BOBB-2345 --link\n"))
    }

    @Test func contactsListsContactsBlockedAndRequests() {
        let request = ContactRequestInfo(
            peer: CLIFixtures.carol, count: 3,
            firstMessage: nil, receivedAt: CLIFixtures.now)
        let text = ContactsView.render(
            ContactsResult(
                contacts: [CLIFixtures.bob], blocked: [CLIFixtures.carol], requests: [request]),
            now: CLIFixtures.now, zone: utc, style: .plain)
        #expect(
            text.contains("CONTACT") && text.contains("BLOCKED") && text.contains("REQUEST FROM"))
        #expect(text.contains("lanchat accept PEER"))
        let empty = ContactsView.render(
            ContactsResult(contacts: [], blocked: [], requests: []), now: CLIFixtures.now,
            zone: utc,
            style: .plain)
        #expect(empty.hasPrefix("No contacts yet"))
    }
}
