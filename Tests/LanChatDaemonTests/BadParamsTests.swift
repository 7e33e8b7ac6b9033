import LanChatClient
import LanChatControl
import LanChatCore
import Testing

@testable import LanChatDaemon

/// Every method checks all its params before it changes anything: each bad request below
/// goes over the real control socket, gets its JSON-RPC error, and afterwards nothing has
/// changed (no message stored or delivered, presence as before, failed messages still
/// failed). `who` and `history` only read; their bad params are answered all the same.
@Suite("Bad params change nothing", .serialized, .timeLimit(.minutes(2)))
struct BadParamsTests {
    static let invalidParams = -32602
    static let badInput = -32001
    static let peerNotFound = -32002

    /// Runs `call`, which must fail with `code`.
    static func expectRefused<T>(
        _ code: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ call: () async throws(ControlError) -> T
    ) async {
        do {
            _ = try await call()
            Issue.record("\(what): accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.rpcCode == code, "\(what): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func sendWithABadParamStoresNothing() async throws {
        try await withConnectedPair { alice, bob in
            let client = alice.client
            let cases: [(Int, String, SendParams)] = [
                (
                    Self.invalidParams, "wait, timeout -5",
                    SendParams(peer: "bob", text: "hi", wait: true, timeout: -5)
                ),
                (
                    Self.invalidParams, "wait, timeout 100000",
                    SendParams(peer: "bob", text: "hi", wait: true, timeout: 100_000)
                ),
                (
                    Self.invalidParams, "waitRead, timeout 86400.5",
                    SendParams(peer: "bob", text: "hi", waitRead: true, timeout: 86_400.5)
                ),
                (
                    Self.invalidParams, "timeout -5 without wait",
                    SendParams(peer: "bob", text: "hi", timeout: -5)
                ),
                (Self.badInput, "text with NUL", SendParams(peer: "bob", text: "cut\u{0}here")),
                (
                    Self.badInput, "texts, one with NUL",
                    SendParams(peer: "bob", texts: ["fine", "\u{0}", "also fine"])
                ),
                (
                    Self.invalidParams, "text and texts",
                    SendParams(peer: "bob", text: "a", texts: ["b"])
                ),
                (Self.invalidParams, "neither text nor texts", SendParams(peer: "bob")),
                (Self.badInput, "no texts", SendParams(peer: "bob", texts: [])),
                (Self.badInput, "blank text", SendParams(peer: "bob", text: " \n")),
                (
                    Self.badInput, "text over 65536 bytes",
                    SendParams(peer: "bob", text: String(repeating: "x", count: 65_537))
                ),
                (
                    Self.badInput, "10001 texts",
                    SendParams(peer: "bob", texts: Array(repeating: "x", count: 10_001))
                ),
                (Self.peerNotFound, "unknown peer", SendParams(peer: "nobody", text: "hi")),
            ]
            for (code, what, params) in cases {
                await Self.expectRefused(code, what) { () async throws(ControlError) in
                    try await client.send(params)
                }
            }
            #expect(try await alice.history(with: bob).isEmpty)
            #expect(try await alice.client.status().queued == 0)
            // Had anything been stored, the live session would have delivered it by now:
            // one good message goes the same way and arrives alone.
            _ = try await client.send(SendParams(peer: "bob", text: "good", wait: true))
            #expect(try await bob.history(with: alice).map(\.text) == ["good"])
        }
    }

    @Test func presenceWithABadTextChangesNothing() async throws {
        try await withConnectedPair { alice, bob in
            let before = try await alice.client.status()
            let cases: [(String, PresenceParams)] = [
                ("text with NUL", PresenceParams(status: .busy, text: "in a\u{0}meeting")),
                (
                    "text over 128 bytes",
                    PresenceParams(status: .away, text: String(repeating: "y", count: 129))
                ),
            ]
            for (what, params) in cases {
                await Self.expectRefused(Self.badInput, what) { () async throws(ControlError) in
                    try await alice.client.presence(params)
                }
            }
            let after = try await alice.client.status()
            #expect(after.status == before.status && after.statusText == before.statusText)
            // Bob sees alice as before: a good change reaches him, and only that one.
            _ = try await alice.client.presence(PresenceParams(status: .away, text: "lunch"))
            try await eventually("bob sees the good change") {
                let peers = try await bob.client.who(WhoParams(all: true)).peers
                return peers.first { $0.id == alice.id }?.statusText == "lunch"
            }
        }
    }

    @Test func historyAndWhoAnswerBadParamsWithErrors() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await alice.client.send(SendParams(peer: "bob", text: "one", wait: true))
            let cases: [(Int, String, HistoryParams)] = [
                (Self.invalidParams, "limit 0", HistoryParams(peer: "bob", limit: 0)),
                (Self.invalidParams, "limit 1001", HistoryParams(peer: "bob", limit: 1001)),
                (
                    Self.invalidParams, "before and after",
                    HistoryParams(
                        peer: "bob", before: "00000000-0000-4000-8000-000000000000",
                        after: "00000000-0000-4000-8000-000000000000")
                ),
                (Self.invalidParams, "before not an id", HistoryParams(peer: "bob", before: "x")),
                (Self.peerNotFound, "unknown peer", HistoryParams(peer: "nobody")),
                (
                    Self.invalidParams, "limit 0 and an unknown peer: the params first",
                    HistoryParams(peer: "nobody", limit: 0)
                ),
            ]
            for (code, what, params) in cases {
                await Self.expectRefused(code, what) { () async throws(ControlError) in
                    try await alice.client.history(params)
                }
            }
            // Reading never marks anything read: bob's unread count is what it was.
            #expect(try await bob.client.status().unread == 1)
            #expect(try await alice.history(with: bob).map(\.text) == ["one"])
            // `who` has no param that can be out of range; a hostile query matches nothing.
            let nobody = try await alice.client.who(WhoParams(query: "\u{0}\u{1B}", all: true))
            #expect(nobody.peers.isEmpty)
        }
    }

    @Test func retryWithABadTargetRequeuesNothing() async throws {
        try await withConnectedPair { alice, bob in
            // A text the peer rejects (only a faulty or newer peer sends one): stored directly.
            let bobKey = try #require(PeerKey(id: bob.id))
            let oversized = try await alice.daemon.messenger.store.enqueue(
                to: bobKey, texts: [String(repeating: "x", count: 70_000)], at: 1)
            await alice.daemon.registry.link(for: bobKey).committed(oversized)
            try await eventually("rejected") {
                try await alice.history(with: bob).map(\.status) == [.failed]
            }
            for target in ["nobody", "0000", "\u{0}"] {
                await Self.expectRefused(Self.peerNotFound, "retry \(target.debugDescription)") {
                    () async throws(ControlError) in
                    try await alice.client.retry(RetryParams(target: target))
                }
            }
            // An empty target (a script's empty variable) is not "every failed message".
            for target in ["", "  "] {
                await Self.expectRefused(Self.invalidParams, "retry \(target.debugDescription)") {
                    () async throws(ControlError) in
                    try await alice.client.retry(RetryParams(target: target))
                }
            }
            // Nor is an empty peer a prefix of every group and peer name.
            for peer in ["", " ", "#"] {
                await Self.expectRefused(Self.invalidParams, "send to \(peer.debugDescription)") {
                    () async throws(ControlError) in
                    try await alice.client.send(SendParams(peer: peer, text: "hi"))
                }
            }
            let shown = try await alice.history(with: bob)
            #expect(shown.map(\.status) == [.failed])
            #expect(shown.map(\.seq) == [1])
        }
    }

    /// lanchat-api(7): yourself among a group's members is bad input (-32001), whether by
    /// name, key tag or id, not an unknown peer; no group is made.
    @Test func aGroupWithYourselfIsBadInputAndMadeNot() async throws {
        try await withConnectedPair { alice, _ in
            let status = try await alice.client.status()
            for own in ["alice", status.keyTag, status.id, "bob bob"] {
                let code = own == "bob bob" ? Self.peerNotFound : Self.badInput
                await Self.expectRefused(code, "group create with \(own)") {
                    () async throws(ControlError) in
                    try await alice.client.groupCreate(
                        GroupCreateParams(name: "ops", peers: ["bob", own]))
                }
            }
            #expect(try await alice.client.groups().groups.isEmpty)
        }
    }

    /// A group name holds no control character and no bidi override (as an alias): it could
    /// not be typed back as `#name`, or would show reordered; nothing is made or renamed.
    @Test func aGroupNameWithAControlCharacterIsBadInput() async throws {
        try await withConnectedPair { alice, _ in
            // Nor white space at either end (found by QA: "ops " beside "ops").
            for name in [
                "a\tb", "x\u{1B}[31m", "nul\u{0}", "line\nbreak", "bidi\u{202E}eman", "x\u{2066}y",
                " ops", "ops ", "ops\u{3000}",
                // Invisible only (found by QA: taken, and `#` of it could not be typed).
                "\u{200B}", "\u{2060}\u{FEFF}", "\u{115F}",
                // '#' is written before a name (found by QA: '#hash' only as '##hash').
                "#hash",
            ] {
                await Self.expectRefused(Self.badInput, "group create \(name.debugDescription)") {
                    () async throws(ControlError) in
                    try await alice.client.groupCreate(
                        GroupCreateParams(name: name, peers: ["bob"]))
                }
            }
            #expect(try await alice.client.groups().groups.isEmpty)
            _ = try await alice.client.groupCreate(GroupCreateParams(name: "ops", peers: ["bob"]))
            await Self.expectRefused(Self.badInput, "group rename to a tab") {
                () async throws(ControlError) in
                try await alice.client.groupRename(GroupRenameParams(group: "#ops", name: "a\tb"))
            }
            #expect(try await alice.client.groups().groups.map(\.name) == ["ops"])
            await Self.expectRefused(Self.badInput, "group rename to 'ops '") {
                () async throws(ControlError) in
                try await alice.client.groupRename(GroupRenameParams(group: "#ops", name: "ops "))
            }
            // A joiner is no override: family emoji stay allowed.
            _ = try await alice.client.groupRename(
                GroupRenameParams(group: "#ops", name: "fam \u{1F468}\u{200D}\u{1F469}"))
        }
    }

    /// An alias that is this node's own name would take `send alice` away from meaning
    /// alice; adding a blocked key would say "messages wait" when none will go.
    @Test func anAliasOfOurOwnNameAndAddingABlockedKeyAreRefused() async throws {
        try await withConnectedPair { alice, bob in
            await Self.expectRefused(Self.badInput, "alias of our own name") {
                () async throws(ControlError) in
                try await alice.client.alias(AliasParams(peer: bob.id, name: "ALICE"))
            }
            _ = try await alice.client.block(PeerParams(peer: bob.id))
            do throws(ControlError) {
                _ = try await alice.client.add(AddParams(name: "bobby", id: bob.id))
                Issue.record("a blocked key was added")
            } catch {
                #expect(error.exitCode == 1 && error.message.contains("unblock"))
            }
            let record = try await alice.client.who(WhoParams(all: true)).peers.first {
                $0.id == bob.id
            }
            #expect(record?.alias == nil && record?.trust == .blocked)
        }
    }

    /// `#NAME` names a group, so no alias starts with '#'; a contact added again under
    /// another name is not renamed behind the user's back (found by QA, both).
    @Test func aHashAliasAndAddingAContactAgainUnderAnotherNameAreRefused() async throws {
        try await withConnectedPair { alice, bob in
            await Self.expectRefused(Self.badInput, "an invisible alias") {
                () async throws(ControlError) in
                try await alice.client.alias(AliasParams(peer: bob.id, name: "\u{200B}"))
            }
            await Self.expectRefused(Self.badInput, "alias '#ops'") {
                () async throws(ControlError) in
                try await alice.client.alias(AliasParams(peer: bob.id, name: "#ops"))
            }
            await Self.expectRefused(Self.badInput, "add '#ops'") {
                () async throws(ControlError) in
                try await alice.client.add(AddParams(name: "#ops", id: bob.id))
            }
            _ = try await alice.client.add(AddParams(name: "bobby", id: bob.id))
            // The same name again is no change, and no error.
            _ = try await alice.client.add(AddParams(name: "bobby", id: bob.id))
            do throws(ControlError) {
                _ = try await alice.client.add(AddParams(name: "robert", id: bob.id))
                Issue.record("a contact was renamed by add")
            } catch {
                #expect(error.exitCode == 1, "\(error)")
                #expect(error.message.contains("lanchat alias bobby robert"), "\(error)")
            }
            let record = try await alice.client.who(WhoParams(all: true)).peers.first {
                $0.id == bob.id
            }
            #expect(record?.alias == "bobby" && record?.contact == true)
        }
    }

    /// A key no handshake can ever succeed with (a low-order point: the all-zero id) is no
    /// contact to keep.
    @Test func addRefusesALowOrderKey() async throws {
        try await withConnectedPair { alice, _ in
            let zero = String(repeating: "A", count: 52)
            await Self.expectRefused(Self.badInput, "add of the zero key") {
                () async throws(ControlError) in
                try await alice.client.add(AddParams(name: "zed", id: zero))
            }
            let contacts = try await alice.client.contacts().contacts
            #expect(contacts.allSatisfy { $0.id != zero })
        }
    }
}
