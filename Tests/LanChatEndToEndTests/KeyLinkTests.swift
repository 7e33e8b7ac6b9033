import Foundation
import Testing

extension EndToEnd {
    /// "Verify and link" (PROTOCOL.md §3.8 rows 7 and 8, §7.4 48) with the built binaries: a
    /// verified contact reinstalls; what alice sends to its old key is held; `verify NEW
    /// NUMBER --link` releases it to the new key, which takes over the conversation and the
    /// name, and the settled warning does not come back after alice restarts.
    @Suite struct KeyLink {
        @Test func aReinstalledContactIsLinkedAndGetsWhatWasHeldForIt() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                var alice = pair.alice
                let bob = pair.bob
                try await alice.sendDelivered("hi old bob", to: "bob")
                #expect(try await alice.lanchat(["group", "create", "team", "bob"]).status == 0)
                let oldNumber = try await bob.json(VerifyObject.self, ["verify", "alice"])
                #expect(
                    try await alice.lanchat(["verify", "bob", oldNumber.safetyNumber]).status == 0)
                let alicePort = try alice.port
                let bobPort = try bob.port
                #expect(await bob.stop() == .exited(0))

                let newBob = try await DaemonProcess.start(
                    "bob", in: sandbox, port: bobPort, peers: ["127.0.0.1:\(alicePort)"],
                    dataDirectory: sandbox.file("bob-reinstalled"))
                #expect(try await alice.awaitOnline(newBob.id), "\(alice.log)")
                let warned = try await pollUntil(timeout: .seconds(5)) {
                    try await !alice.json(WhoKeyChanges.self, ["who"]).keyChanges.isEmpty
                }
                #expect(warned)
                // verify offers the link: the earlier key whose name the new one took.
                let offered = try await alice.json(OfferObject.self, ["verify", newBob.keyTag])
                #expect(offered.canReplace?.keyTag == bob.keyTag)
                // Held: queued for the old key, nothing reaches the new one; the send says so
                // on standard error, and how to send it to the new key instead.
                let heldSend = try await alice.lanchat(["send", bob.keyTag, "held for bob"])
                #expect(heldSend.status == 0, "\(heldSend)")
                #expect(
                    heldSend.standardError.contains("held for bob's key \(bob.keyTag)")
                        && heldSend.standardError.contains(
                            "lanchat verify \(newBob.keyTag) --link"),
                    "\(heldSend)")
                let held = heldSend.output.trimmingCharacters(in: .whitespacesAndNewlines)
                // The name is claimed by both keys: a send by it chooses neither.
                #expect(try await alice.lanchat(["send", "bob", "which one?"]).status == 67)
                // A group copy for the old key, still the group's member, waits too.
                _ = try await alice.send("to the team", to: "#team")

                // Nothing to link for a peer without a warning; a wrong number links nothing.
                let noWarning = try await alice.lanchat(["verify", bob.keyTag, "--link"])
                #expect(noWarning.status == 1, "\(noWarning)")
                #expect(noWarning.standardError.contains("nothing to link"), "\(noWarning)")
                let wrong = try await alice.lanchat(
                    ["verify", newBob.keyTag, String(repeating: "1", count: 60), "--link"])
                #expect(wrong.status == 1, "\(wrong)")
                #expect(try await alice.peer(newBob.id)?.trust == "unverified")
                #expect(
                    try await alice.json(HistoryResult.self, ["history", bob.keyTag]).messages.count
                        == 2)

                let number = try await newBob.json(VerifyObject.self, ["verify", "alice"])
                let linked = try await alice.json(
                    LinkedVerifyObject.self,
                    ["verify", newBob.keyTag, number.safetyNumber, "--link"])
                #expect(linked.verified && linked.peer.trust == "verified")
                #expect(linked.peer.alias == "bob" && linked.peer.contact)
                // The retired key keeps its name, but the name is free for the new key's
                // alias again (found by QA: "'bob' is already used by bob").
                #expect(try await alice.lanchat(["alias", newBob.keyTag, "robert"]).status == 0)
                let back = try await alice.lanchat(["alias", newBob.keyTag, "bob"])
                #expect(back.status == 0, "\(back)")
                #expect(linked.linked.previous.keyTag == bob.keyTag)
                #expect(linked.linked.messages == 2 && linked.linked.released == 1)
                // Group members are keys: the link says where the old key still is.
                #expect(linked.linked.groups.map(\.name) == ["team"])
                // The old key is never sent to again: its group copy failed, and so does the
                // copy of a message sent to the group since, at once, saying why.
                #expect(try await Self.oldKeysCopies(alice, bob) == ["failed"])
                _ = try await alice.send("to the team again", to: "#team")
                #expect(try await Self.oldKeysCopies(alice, bob) == ["failed", "failed"])
                // Nor does a message to it by its key tag wait for ever (found by QA): refused.
                let toOld = try await alice.lanchat(["send", bob.keyTag, "to the old key"])
                #expect(toOld.status == 1, "\(toOld)")
                #expect(toOld.standardError.contains("was replaced by"), "\(toOld)")
                let reason = try await alice.json(GroupHistory.self, ["history", "#team"])
                    .messages.last?.failReason
                #expect(reason?.contains("remove it from the group") == true, "\(reason ?? "")")

                // The held message reaches the new key, once; the name now means it.
                let received = try await newBob.awaitReceived(held, from: "alice")
                #expect(received?.text == "held for bob", "\(newBob.log)")
                #expect(try await alice.awaitMessage(held, to: "bob", status: "delivered") != nil)
                let history = try await alice.json(HistoryResult.self, ["history", "bob"])
                #expect(history.peer.id == newBob.id)
                #expect(history.messages.map(\.text) == ["hi old bob", "held for bob"])
                #expect(try await alice.json(WhoKeyChanges.self, ["who"]).keyChanges.isEmpty)
                try await alice.sendDelivered("hello new bob", to: "bob")
                let text = try await alice.lanchat(["status"])
                #expect(!text.output.contains("different key"), "\(text)")
                // Nothing is left queued for the old key, and retry sends it nothing.
                #expect(try await alice.json(StatusCounts.self, ["status"]).queued == 0)
                let retried = try await alice.lanchat(["retry"])
                #expect(retried.standardError.contains("No failed messages"), "\(retried)")

                // After a restart the settled change stays settled: the new key's HELLO
                // (processed before its message below) raises no warning again.
                #expect(await alice.stop() == .exited(0))
                alice = try await DaemonProcess.start(
                    "alice", in: sandbox, port: alicePort,
                    peers: ["\(newBob.id)@127.0.0.1:\(bobPort)"])
                #expect(try await alice.awaitOnline(newBob.id), "\(alice.log)")
                let reply = try await newBob.send("back again", to: "alice")
                #expect(try await alice.awaitReceived(reply, from: "bob") != nil, "\(alice.log)")
                #expect(try await alice.json(WhoKeyChanges.self, ["who"]).keyChanges.isEmpty)
                #expect(try await alice.peer(newBob.id)?.trust == "verified")
                let again = try await alice.lanchat(["verify", "bob", "--link"])
                #expect(again.status == 1, "\(again)")
            }
        }
    }
}

extension EndToEnd.KeyLink {
    /// §3.8 row 7 is about a new key. A known peer that takes another's name (carol restarts
    /// as "Bob") is no key change: no warning, nothing to link, bob keeps his conversation
    /// (found by QA: `verify --link` gave carol bob's 152 messages).
    @Test func aKnownPeerTakingAnothersNameIsNoKeyChange() async throws {
        try await inSandbox { sandbox in
            let pair = try await DaemonPair.start(in: sandbox)
            let alice = pair.alice
            try await alice.sendDelivered("for bob only", to: "bob")
            let alicePort = try alice.port
            var carol = try await DaemonProcess.start(
                "carol", in: sandbox, peers: ["127.0.0.1:\(alicePort)"])
            #expect(try await alice.awaitOnline(carol.id), "\(alice.log)")
            try await alice.sendDelivered("for carol", to: "carol")
            let carolPort = try carol.port
            #expect(await carol.stop() == .exited(0))

            carol = try await DaemonProcess.start(
                "Bob", in: sandbox, port: carolPort, peers: ["127.0.0.1:\(alicePort)"],
                dataDirectory: sandbox.file("carol-data"), socket: sandbox.file("carol.sock"))
            // Her HELLO is applied before her message: once it arrives, any warning is there.
            let renamed = try await carol.send("still carol", to: alice.id)
            #expect(try await alice.awaitReceived(renamed, from: carol.keyTag) != nil)
            #expect(try await alice.peer(carol.id)?.name == "Bob")
            #expect(try await alice.json(WhoKeyChanges.self, ["who"]).keyChanges.isEmpty)
            let link = try await alice.lanchat(["verify", carol.keyTag, "--link"])
            #expect(link.status == 1, "\(link)")
            #expect(link.standardError.contains("nothing to link"), "\(link)")
            let bobs = try await alice.json(HistoryResult.self, ["history", pair.bob.keyTag])
            #expect(bobs.messages.map(\.text) == ["for bob only"])
        }
    }
}

extension EndToEnd.KeyLink {
    /// The status of each of `old`'s copies in `daemon`'s history of #team, oldest first.
    static func oldKeysCopies(_ daemon: DaemonProcess, _ old: DaemonProcess) async throws
        -> [String]
    {
        try await daemon.json(GroupHistory.self, ["history", "#team"]).messages.compactMap {
            $0.recipients?.first { $0.peer == old.id }?.status
        }
    }
}

/// `lanchat history GROUP --json`: each message's copies by member.
struct GroupHistory: Decodable, Sendable {
    struct Message: Decodable, Sendable {
        struct Recipient: Decodable, Sendable {
            var peer: String
            var status: String
        }
        var text: String
        var failReason: String?
        var recipients: [Recipient]?
    }
    var messages: [Message]
}

/// `lanchat verify --link --json`.
struct LinkedVerifyObject: Decodable, Sendable {
    struct Linked: Decodable, Sendable {
        struct Group: Decodable, Sendable { var name: String }
        var previous: WhoKeyChanges.Candidate
        var messages: Int
        var released: Int
        var groups: [Group]
    }
    var peer: ContactPeer
    var verified: Bool
    var linked: Linked
}

/// `lanchat verify PEER --json` of a key that took an earlier key's name.
struct OfferObject: Decodable, Sendable {
    var canReplace: WhoKeyChanges.Candidate?
}

extension EndToEnd.KeyLink {
    /// A reinstalled peer that only we dial (`--peer ID@HOST:PORT`; it does not dial us): the
    /// key that answers at its address is refused (PROTOCOL.md §3.8 row 4) but known, with a
    /// key-change warning, so its safety number can be compared and the link made; then what
    /// was held goes out to it, over a dial to the same address (found by QA: its key tag
    /// matched no peer, and the held messages stayed stuck).
    @Test func aNewKeyThatAnsweredWhereWeDialledCanBeLinked() async throws {
        try await inSandbox { sandbox in
            let bob = try await DaemonProcess.start("bob", in: sandbox)
            let bobPort = try bob.port
            let alice = try await DaemonProcess.start(
                "alice", in: sandbox, peers: ["\(bob.id)@127.0.0.1:\(bobPort)"])
            #expect(try await alice.awaitOnline(bob.id), "\(alice.log)")
            #expect(await bob.stop() == .exited(0))
            let held = try await alice.send("held for bob", to: "bob")

            let newBob = try await DaemonProcess.start(
                "bob", in: sandbox, port: bobPort, dataDirectory: sandbox.file("bob-reinstalled"))
            let warned = try await pollUntil(timeout: .seconds(10)) {
                try await alice.json(WhoKeyChanges.self, ["who", "--all"]).keyChanges.contains {
                    $0.peer.id == newBob.id && $0.previous?.id == bob.id
                }
            }
            #expect(warned, "\(alice.log)")
            #expect(try await alice.peer(newBob.id)?.presence != "online", "no session opened")
            let shown = try await alice.json(VerifyObject.self, ["verify", newBob.keyTag])
            let linked = try await alice.lanchat(
                ["verify", newBob.keyTag, shown.safetyNumber, "--link"])
            #expect(linked.status == 0, "\(linked)")
            let arrived = try await pollUntil(timeout: .seconds(10)) {
                try await newBob.json(HistoryResult.self, ["history", alice.id]).messages.map(\.id)
                    == [held]
            }
            #expect(arrived, "\(alice.log)\n\(newBob.log)")
            #expect(try await alice.peer(newBob.id)?.presence == "online")
        }
    }
}
