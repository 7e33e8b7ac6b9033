import Foundation
import Testing

/// `lanchat contacts`, `add`, `alias`, `verify`, `block`/`unblock`, `remove`, `accept` and
/// `lanchatd --accept contacts` with the built binaries (issue "Contacts, trust and message
/// requests"): exit codes, `--json` shapes, and what survives a restart.
extension EndToEnd {
    @Suite struct Contacts {
        /// A fresh, valid id no daemon has: 52 base32 characters, the last with its 4 unused
        /// bits clear.
        static let unseenID = "BB" + String(repeating: "A", count: 49) + "Q"

        /// `12345 67890 …`: the number as people read it out.
        static func grouped(_ digits: String) -> String {
            let characters = Array(digits)
            var groups: [String] = []
            var start = 0
            while start < characters.count {
                groups.append(String(characters[start..<min(start + 5, characters.count)]))
                start += 5
            }
            return groups.joined(separator: " ")
        }

        /// The 5-digit groups in `text`, joined.
        static func digitGroups(_ text: String) -> String {
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
            let groups: [Substring] = words.filter { $0.count == 5 && $0.allSatisfy(\.isNumber) }
            return groups.map(String.init).joined()
        }

        @Test func addAliasVerifyAndRemoveWithTheirErrorsAndARestart() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)

                // Malformed ids: exit 65, nothing added.
                for bad in ["ABC", String(Self.unseenID.dropLast()) + "1", alice.id] {
                    let refused = try await alice.lanchat(["add", "carol", bad])
                    #expect(refused.status == 65, "\(refused)")
                }
                #expect(try await alice.json(ContactsObject.self, ["contacts"]).contacts.isEmpty)

                // An id never seen: a contact at once; messages to it wait.
                let added = try await alice.json(
                    PeerResultObject.self, ["add", "carol", Self.unseenID])
                #expect(added.peer.alias == "carol" && added.peer.contact)
                let queued = try await alice.lanchat(["send", "carol", "waiting for you"])
                #expect(queued.status == 0, "\(queued)")
                // Added by its id while online, bob is not said to wait (found by QA).
                let online = try await alice.lanchat(["add", "bobby2", bob.id])
                #expect(
                    online.status == 0 && online.output.contains("; it is online."), "\(online)")
                #expect(try await alice.lanchat(["alias", "bob", "--clear"]).status == 0)

                // Aliases resolve, and may not collide with another peer's alias or name.
                #expect(try await alice.lanchat(["alias", "bob", "Bobby"]).status == 0)
                let clash = try await alice.lanchat(["alias", "bob", "CAROL"])
                #expect(clash.status == 65 && clash.standardError.contains("carol"), "\(clash)")
                try await alice.sendDelivered("by alias", to: "Bobby")
                // Writing to a peer first makes it a contact.
                let afterSending = try await alice.json(ContactsObject.self, ["contacts"])
                #expect(afterSending.contacts.contains { $0.id == bob.id })

                // Safety numbers: the same on both sides; a malformed one or a mismatch changes
                // nothing; the right one, spaced or not, verifies.
                let mine = try await alice.json(VerifyObject.self, ["verify", "bob"])
                let theirs = try await bob.json(VerifyObject.self, ["verify", "alice"])
                #expect(mine.safetyNumber == theirs.safetyNumber && mine.safetyNumber.count == 60)
                let shown = try await alice.lanchat(["verify", "bob"])
                #expect(Self.digitGroups(shown.output) == mine.safetyNumber, "\(shown)")
                #expect(try await alice.lanchat(["verify", "bob", "12345"]).status == 65)
                let wrong = String(mine.safetyNumber.reversed())
                #expect(try await alice.lanchat(["verify", "bob", wrong]).status == 1)
                #expect(try await alice.peer(bob.id)?.trust == "unverified")
                let spaced = Self.grouped(mine.safetyNumber)
                #expect(try await alice.lanchat(["verify", "bob", spaced]).status == 0)
                // A wrong number now leaves the verified peer verified, and says so (QA: it
                // said "is not verified" of a verified peer).
                let mismatch = try await alice.lanchat(["verify", "bob", wrong])
                #expect(mismatch.status == 1)
                #expect(mismatch.standardError.contains("stays verified"), "\(mismatch)")
                #expect(try await alice.peer(bob.id)?.trust == "verified")

                // All of it survives a restart.
                let alicePort = try alice.port
                #expect(await alice.stop() == .exited(0))
                let again = try await DaemonProcess.start(
                    "alice", in: sandbox, port: alicePort, peers: ["127.0.0.1:\(try bob.port)"],
                    dataDirectory: alice.dataDirectory)
                let contacts = try await again.json(ContactsObject.self, ["contacts"])
                let bobNow = try #require(contacts.contacts.first { $0.id == bob.id })
                #expect(bobNow.alias == "Bobby" && bobNow.trust == "verified")
                #expect(
                    contacts.contacts.contains { $0.id == Self.unseenID && $0.alias == "carol" })

                // remove forgets alias, verification and contact status.
                let removed = try await again.json(PeerResultObject.self, ["remove", "Bobby"])
                #expect(removed.peer.alias == nil && removed.peer.trust == "unverified")
                #expect(!removed.peer.contact)
                #expect(try await again.lanchat(["history", "Bobby"]).status == 67)
                #expect(
                    try await again.json(HistoryResult.self, ["history", "bob"]).messages.count == 1
                )

                // --purge keeps what is still on its way, and says so (QA: it said "deleted
                // the conversation", and the inbox still showed it).
                let purged = try await again.lanchat(["remove", "carol", "--purge"])
                #expect(purged.status == 0, "\(purged)")
                #expect(
                    purged.output.hasPrefix("Forgot the alias, verification and contact status of ")
                        && purged.output.contains(
                            "deleted the conversation, except 1 message still on its way to it"),
                    "\(purged)")
                let kept = try await again.json(HistoryResult.self, ["history", Self.unseenID])
                #expect(kept.messages.map(\.text) == ["waiting for you"])
                // The count is the daemon's own answer (`kept`), in JSON too.
                let purgedJSON = try await again.json(
                    RemoveObject.self, ["remove", Self.unseenID, "--purge"])
                #expect(purgedJSON.kept == 1 && purgedJSON.peer.id == Self.unseenID)
                #expect(
                    try await again.json(RemoveObject.self, ["remove", Self.unseenID]).kept == nil)
                let purgedAgain = try await again.lanchat(["remove", "bob", "--purge"])
                #expect(purgedAgain.output.hasSuffix("and deleted the conversation.\n"))
            }
        }

        /// A blocked peer's session is closed, its reconnections refused, nothing it sends is
        /// stored; unblocking delivers what it queued meanwhile, once.
        @Test func blockingRefusesThePeerAndUnblockingDeliversItsQueueOnce() async throws {
            try await inSandbox { sandbox in
                let alicePort = try reserveFreePort()
                let bob = try await DaemonProcess.start(
                    "bob", in: sandbox, peers: ["127.0.0.1:\(alicePort)"])
                let alice = try await DaemonProcess.start(
                    "alice", in: sandbox, port: alicePort, peers: ["127.0.0.1:\(try bob.port)"],
                    extraArguments: ["--log-level", "debug"])
                try await DaemonPair(alice: alice, bob: bob).awaitConnected()

                let blocked = try await alice.json(PeerResultObject.self, ["block", "bob"])
                #expect(blocked.peer.trust == "blocked")
                #expect(
                    try await pollUntil(timeout: .seconds(5)) {
                        try await bob.peer(alice.id)?.presence != "online"
                    }, "\(bob.log)")
                let id = try await bob.send("let me in", to: "alice")
                // bob dials again and is refused at the handshake.
                #expect(
                    await alice.awaitLogLine("blocked key", "refused", timeout: .seconds(10))
                        != nil, "\(alice.log)")
                #expect(
                    try await alice.json(HistoryResult.self, ["history", "bob"]).messages.isEmpty)
                #expect(
                    try await bob.json(HistoryResult.self, ["history", "alice"]).messages.first?
                        .status == "queued")
                #expect(try await alice.lanchat(["send", "bob", "no"]).status == 1)
                // The right safety number does not lift the block (found by QA: it made bob
                // verified, and his sessions came back).
                let number = try await alice.json(VerifyObject.self, ["verify", "bob"])
                let verify = try await alice.lanchat(["verify", "bob", number.safetyNumber])
                #expect(verify.status == 1, "\(verify)")
                #expect(verify.standardError.contains("is blocked: unblock it first"), "\(verify)")
                let contacts = try await alice.json(ContactsObject.self, ["contacts"])
                #expect(contacts.blocked.map(\.id) == [bob.id])

                #expect(try await alice.lanchat(["unblock", "bob"]).status == 0)
                #expect(
                    try await bob.awaitMessage(
                        id, to: "alice", status: "delivered", timeout: .seconds(10)) != nil,
                    "\(bob.log)")
                let received = try await alice.json(HistoryResult.self, ["history", "bob"]).messages
                #expect(received.map(\.id) == [id])
                #expect(try await alice.lanchat(["unblock", "bob"]).status == 1)
            }
        }

        /// `--accept contacts`: a stranger's message is delivered but kept apart as a request
        /// (not in the inbox, not unread, never read-receipted) until `accept`; the request
        /// survives a restart.
        @Test func messageRequestsWaitApartUntilAccepted() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(
                    in: sandbox, aliceArguments: ["--accept", "contacts"])
                let (alice, bob) = (pair.alice, pair.bob)

                try await bob.sendDelivered("hello, it's bob", to: "alice")
                try await bob.sendDelivered("second", to: "alice")
                #expect(try await alice.json(InboxObject.self, ["inbox"]).conversations.isEmpty)
                #expect(try await alice.json(StatusResult.self, ["status"]).unread == 0)
                var contacts = try await alice.json(ContactsObject.self, ["contacts"])
                #expect(contacts.requests.map(\.peer.id) == [bob.id])
                #expect(contacts.requests.first?.count == 2)
                #expect(contacts.requests.first?.firstMessage?.text == "hello, it's bob")
                #expect(try await alice.lanchat(["read"]).status == 0)
                #expect(try await alice.lanchat(["read", "bob"]).status == 1)

                let alicePortNow = try alice.port
                #expect(await alice.stop() == .exited(0))
                let again = try await DaemonProcess.start(
                    "alice", in: sandbox, port: alicePortNow,
                    peers: ["127.0.0.1:\(try bob.port)"], dataDirectory: alice.dataDirectory,
                    extraArguments: ["--accept", "contacts"])
                contacts = try await again.json(ContactsObject.self, ["contacts"])
                #expect(contacts.requests.map(\.peer.id) == [bob.id])
                // Never read while a request: bob still sees delivered.
                let bobView = try await bob.json(HistoryResult.self, ["history", "alice"])
                #expect(bobView.messages.allSatisfy { $0.status == "delivered" })

                let accepted = try await again.json(PeerResultObject.self, ["accept", "bob"])
                #expect(accepted.peer.contact)
                let inbox = try await again.json(InboxObject.self, ["inbox"])
                #expect(inbox.conversations.map(\.unread) == [2])
                #expect(try await again.json(ContactsObject.self, ["contacts"]).requests.isEmpty)
                #expect(try await again.lanchat(["accept", "bob"]).status == 1)
            }
        }

        /// `accept` as a configuration key, and SIGHUP changing it: from then on a new
        /// stranger's messages reach the inbox (a request already pending stays one).
        @Test func theAcceptPolicyComesFromTheFileAndReloads() async throws {
            try await inSandbox { sandbox in
                let config = sandbox.file("alice.conf")
                try Data("accept = \"contacts\"\n".utf8).write(to: URL(fileURLWithPath: config))
                let alicePort = try reserveFreePort()
                let bob = try await DaemonProcess.start(
                    "bob", in: sandbox, peers: ["127.0.0.1:\(alicePort)"])
                let alice = try await DaemonProcess.start(
                    "alice", in: sandbox, port: alicePort, peers: ["127.0.0.1:\(try bob.port)"],
                    extraArguments: ["--config", config])
                try await DaemonPair(alice: alice, bob: bob).awaitConnected()
                try await bob.sendDelivered("from a stranger", to: "alice")
                #expect(try await alice.json(ContactsObject.self, ["contacts"]).requests.count == 1)

                try Data("accept = \"anyone\"\n".utf8).write(to: URL(fileURLWithPath: config))
                alice.child.send(SIGHUP)
                #expect(
                    await alice.awaitLogLine("reload: accept: contacts → anyone") != nil,
                    "\(alice.log)")
                let carol = try await DaemonProcess.start(
                    "carol", in: sandbox, peers: ["127.0.0.1:\(alicePort)"])
                #expect(try await carol.awaitOnline(alice.id))
                try await carol.sendDelivered("hi from carol", to: "alice")
                let inbox = try await alice.json(InboxObject.self, ["inbox"])
                #expect(inbox.conversations.map(\.unread) == [1])
                #expect(try await alice.json(ContactsObject.self, ["contacts"]).requests.count == 1)
            }
        }

        /// A known name with a new key: a new, unverified peer, a warning in who and status,
        /// and the name is ambiguous (exit 67 naming both key tags) instead of reaching it.
        @Test func aNameWithANewKeyIsANewPeerAndTheNameBecomesAmbiguous() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)
                try await alice.sendDelivered("hi old bob", to: "bob")
                let bobPort = try bob.port
                #expect(await bob.stop() == .exited(0))

                let newBob = try await DaemonProcess.start(
                    "bob", in: sandbox, port: bobPort, peers: ["127.0.0.1:\(try alice.port)"],
                    dataDirectory: sandbox.file("bob-reinstalled"))
                #expect(newBob.id != bob.id)
                #expect(try await alice.awaitOnline(newBob.id), "\(alice.log)")
                let warned = try await pollUntil(timeout: .seconds(5)) {
                    try await !alice.json(WhoKeyChanges.self, ["who"]).keyChanges.isEmpty
                }
                #expect(warned)
                let who = try await alice.json(WhoKeyChanges.self, ["who"])
                #expect(who.keyChanges.first?.peer.id == newBob.id)
                #expect(who.keyChanges.first?.previous?.id == bob.id)
                let status = try await alice.lanchat(["status"])
                #expect(status.output.contains("bob is now using a different key"), "\(status)")
                #expect(try await alice.peer(newBob.id)?.trust == "unverified")

                let refused = try await alice.lanchat(["send", "bob", "for the old bob"])
                #expect(refused.status == 67, "\(refused)")
                #expect(refused.standardError.contains(newBob.keyTag), "\(refused)")
                #expect(refused.standardError.contains(bob.keyTag), "\(refused)")
                #expect(try await newBob.json(WhoResult.self, ["who"]).peers.count == 1)
                #expect(
                    try await alice.json(HistoryResult.self, ["history", newBob.keyTag]).messages
                        .isEmpty)
            }
        }
    }
}

/// `lanchat contacts --json`.
struct ContactsObject: Decodable, Sendable {
    struct Request: Decodable, Sendable {
        var peer: ContactPeer
        var count: Int
        var firstMessage: MessageObject?
        var receivedAt: String
    }
    var contacts: [ContactPeer]
    var blocked: [ContactPeer]
    var requests: [Request]
}

/// A peer object with the fields contacts change.
struct ContactPeer: Decodable, Sendable {
    var id: String
    var keyTag: String
    var alias: String?
    var trust: String
    var contact: Bool
}

struct PeerResultObject: Decodable, Sendable {
    var peer: ContactPeer
}

struct RemoveObject: Decodable, Sendable {
    var peer: ContactPeer
    var kept: Int?
}

struct VerifyObject: Decodable, Sendable {
    var safetyNumber: String
    var verified: Bool
}

struct InboxObject: Decodable, Sendable {
    struct Conversation: Decodable, Sendable { var unread: Int }
    var conversations: [Conversation]
}

struct WhoKeyChanges: Decodable, Sendable {
    struct Candidate: Decodable, Sendable {
        var id: String
        var keyTag: String
    }
    struct Change: Decodable, Sendable {
        var peer: Candidate
        var previous: Candidate?
    }
    var keyChanges: [Change]
}
