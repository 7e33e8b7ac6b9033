import Foundation
import LanChatClient
import LanChatControl
import LanChatCore
import Testing

@testable import LanChatDaemon

/// Group conversations through whole in-process daemons (issue 13): the inbox lists a group
/// with `peer: null`, its name, unread count and last message; `read GROUP` and
/// `archive GROUP` act on it; 1:1 conversations are unchanged beside it.
@Suite("Group conversations between in-process daemons", .serialized, .timeLimit(.minutes(3)))
struct GroupConversationTests {
    /// Alice makes group `ops` with bob, sends it `group`, then bob `direct`, and waits until
    /// bob has every one of them unread.
    static func opsWithUnread(
        _ alice: TestNode, _ bob: TestNode, group texts: [String], direct: [String]
    ) async throws -> GroupInfo {
        let group = try await alice.client.groupCreate(
            GroupCreateParams(name: "ops", peers: ["bob"])
        ).group
        for text in texts { _ = try await alice.client.send(SendParams(peer: "#ops", text: text)) }
        for text in direct { _ = try await alice.client.send(SendParams(peer: "bob", text: text)) }
        try await eventually("bob has \(texts.count + direct.count) unread") {
            try await bob.client.status().unread == texts.count + direct.count
        }
        return group
    }

    @Test func theInboxListsAGroupWithItsUnreadCountAndLastMessage() async throws {
        try await withConnectedPair { alice, bob in
            let group = try await Self.opsWithUnread(
                alice, bob, group: ["deploy at 5", "build is green"], direct: ["just you"])

            let inbox = try await bob.client.inbox().conversations
            let groupRow = try #require(inbox.first { $0.group != nil }, "\(inbox)")
            #expect(groupRow.peer == nil)
            #expect(groupRow.group?.id == group.id)
            #expect(groupRow.group?.name == "ops")
            #expect(groupRow.unread == 2)
            #expect(groupRow.lastMessage?.text == "build is green")
            #expect(groupRow.lastMessage?.sender == alice.id)
            let direct = try #require(inbox.first { $0.peer?.id == alice.id }, "\(inbox)")
            #expect(direct.group == nil)
            #expect(direct.unread == 1)
            #expect(direct.lastMessage?.text == "just you")
            #expect(inbox.count == 2)
            // Group and 1:1 conversations in one list, newest activity first.
            #expect(zip(inbox, inbox.dropFirst()).allSatisfy { $0.updatedAt >= $1.updatedAt })

            // The sender's inbox shows its own message once, with its recipient.
            let mine = try await alice.client.inbox().conversations
            let ownRow = try #require(mine.first { $0.group?.id == group.id }, "\(mine)")
            #expect(ownRow.lastMessage?.direction == .outgoing)
            #expect(ownRow.lastMessage?.recipients?.map(\.peer) == [bob.id])
            #expect(try await bob.client.inbox(InboxParams(query: "op")).conversations.count == 1)

            _ = try await bob.client.read(ReadParams(peer: "#ops"))
            let afterRead = try await bob.client.inbox().conversations
            #expect(afterRead.first { $0.group != nil }?.unread == 0)
            #expect(afterRead.first { $0.peer != nil }?.unread == 1)

            let archived = try await bob.client.archive(ArchiveParams(peer: "#ops"))
            #expect(archived.conversation.archived && archived.changed == true)
            #expect(archived.conversation.group?.id == group.id)
            #expect(try await bob.client.inbox().conversations.map(\.group) == [nil])
            let hidden = try await bob.client.inbox(InboxParams(archived: true)).conversations
            #expect(hidden.map(\.group?.id) == [group.id])

            // A new message brings it back.
            _ = try await alice.client.send(SendParams(peer: "#ops", text: "back"))
            try await eventually("the group is back in bob's inbox") {
                try await bob.client.inbox().conversations.contains { $0.group?.id == group.id }
            }
            let unarchived = try await bob.client.unarchive(ArchiveParams(peer: "#ops"))
            #expect(!unarchived.conversation.archived && unarchived.changed == false)
            _ = try await bob.client.archive(ArchiveParams(peer: "#ops"))
            let shown = try await bob.client.unarchive(ArchiveParams(peer: "#ops"))
            #expect(!shown.conversation.archived && shown.changed == true)
        }
    }

    /// `read PEER` is that 1:1 conversation only; `read` of everything and `search` show a
    /// group's messages with their group and sender, an own one once, not once per member.
    @Test func readAndSearchKeepAGroupMessagesGroup() async throws {
        try await withConnectedPair { alice, bob in
            let group = try await Self.opsWithUnread(
                alice, bob, group: ["ops news"], direct: ["direct news"])

            let direct = try await bob.client.read(ReadParams(peer: alice.id)).messages
            #expect(direct.map(\.text) == ["direct news"])
            #expect(direct.map(\.group) == [nil])
            let rest = try await bob.client.read(ReadParams()).messages
            #expect(rest.map(\.text) == ["ops news"])
            #expect(rest.first?.group == group.id)
            #expect(rest.first?.sender == alice.id)

            let found = try await alice.client.search(SearchParams(text: "news")).messages
            #expect(Set(found.map(\.text)) == ["ops news", "direct news"], "\(found)")
            let own = try #require(found.first { $0.text == "ops news" })
            #expect(own.group == group.id)
            #expect(own.sender == alice.id)
            #expect(own.recipients?.map(\.peer) == [bob.id])
            #expect(found.first { $0.text == "direct news" }?.group == nil)
        }
    }

    /// A name that is a peer's and a group's is refused as ambiguous, naming each so that it
    /// can be given unambiguously: the peer with its key tag, the group as #NAME.
    @Test func aNameOfAPeerAndAGroupNamesBothWaysToChoose() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await alice.client.groupCreate(GroupCreateParams(name: "bob", peers: ["bob"]))
            let keyTag = try await bob.client.status().keyTag
            do throws(ControlError) {
                _ = try await alice.client.send(SendParams(peer: "bob", text: "which?"))
                Issue.record("an ambiguous name was taken")
            } catch {
                #expect(error.exitCode == 67)
                #expect(error.message.contains("(\(keyTag))"), "\(error.message)")
                #expect(error.message.contains("group #bob"), "\(error.message)")
            }
        }
    }

    /// The own member of a group shows the availability this node announces, not always
    /// `available`.
    @Test func theOwnMemberShowsItsOwnAvailability() async throws {
        try await withConnectedPair { alice, _ in
            _ = try await alice.client.groupCreate(GroupCreateParams(name: "ops", peers: ["bob"]))
            _ = try await alice.client.presence(PresenceParams(status: .busy, text: "deep work"))
            let members = try await alice.client.groups().groups.first?.members ?? []
            let own = try #require(members.first { $0.id == alice.id })
            #expect(own.status == .busy && own.statusText == "deep work" && own.presence == .online)
        }
    }

    /// A group message is one id whatever the members' copies: `idsOnly` answers one per text.
    @Test func anIDsOnlyGroupSendAnswersOneIDPerMessage() async throws {
        try await withConnectedPair { alice, bob in
            let away = try #require(PeerKey(bytes: [UInt8](repeating: 0x44, count: 32))?.id)
            _ = try await alice.client.add(AddParams(name: "dave", id: away))
            let group = try await alice.client.groupCreate(
                GroupCreateParams(name: "ops", peers: ["bob", "dave"])
            ).group
            let sent = try await alice.client.send(
                SendParams(peer: group.id, texts: ["one", "two"], idsOnly: true))
            #expect(sent.messages == nil)
            let shown = try await alice.client.history(HistoryParams(peer: group.id))
            #expect(shown.messages.map(\.id) == sent.ids)
            #expect(shown.messages.map(\.text) == ["one", "two"])
        }
    }

    /// `history GROUP` pages like a peer's, in whole messages: a group of alice, bob and two
    /// members away (dave, erin), own messages sent one and several at a time between bob's;
    /// walking back with `before` and forward with `after`, every message shows once, and
    /// each own one with its 3 recipients. An unknown id is refused as for a peer.
    @Test func groupHistoryPagesBackAndForthInWholeMessages() async throws {
        try await withConnectedPair { alice, bob in
            let away = [UInt8(0x44), 0x55].compactMap {
                PeerKey(bytes: [UInt8](repeating: $0, count: 32))?.id
            }
            _ = try await alice.client.add(AddParams(name: "dave", id: away[0]))
            _ = try await alice.client.add(AddParams(name: "erin", id: away[1]))
            let group = try await alice.client.groupCreate(
                GroupCreateParams(name: "ops", peers: ["bob", "dave", "erin"])
            ).group
            try await eventually("bob has the group") {
                try await bob.client.groups().groups.first?.id == group.id
            }
            var expected: [String] = []
            func own(_ texts: [String]) async throws {
                _ = try await alice.client.send(SendParams(peer: group.id, texts: texts))
                expected += texts
            }
            func bobs(_ texts: [String]) async throws {
                _ = try await bob.client.send(SendParams(peer: group.id, texts: texts))
                expected += texts
                try await eventually("alice has \(texts)") {
                    try await alice.client.history(HistoryParams(peer: group.id, limit: 1))
                        .messages.first?.text == texts.last
                }
            }
            try await own(["o1", "o2"])
            try await bobs(["b1"])
            try await own(["o3"])
            try await bobs(["b2", "b3"])
            try await own(["o4", "o5", "o6"])
            try await bobs(["b4"])
            try await own(["o7"])

            let recipients = Set([bob.id] + away)
            func page(before: String? = nil, after: String? = nil) async throws -> HistoryResult {
                let result = try await alice.client.history(
                    HistoryParams(peer: group.id, limit: 4, before: before, after: after))
                for message in result.messages where message.direction == .outgoing {
                    #expect(
                        Set(message.recipients?.map(\.peer) ?? []) == recipients,
                        "\(message.text)")
                    #expect(message.recipients?.count == 3, "\(message.text)")
                }
                #expect(result.group?.id == group.id)
                return result
            }

            var back: [[String]] = []
            var result = try await page()
            back.append(result.messages.map(\.text))
            while result.hasOlder, let first = result.messages.first {
                result = try await page(before: first.id)
                back.append(result.messages.map(\.text))
            }
            #expect(back.count == 3)
            #expect(back.reversed().flatMap { $0 } == expected)

            let first = try #require(
                try await alice.client.history(HistoryParams(peer: group.id, limit: 1000))
                    .messages.first)
            var forward = [first.text]
            var last = first.id
            while true {
                let next = try await page(after: last)
                #expect(next.hasOlder)
                guard let newest = next.messages.last else { break }
                forward += next.messages.map(\.text)
                last = newest.id
            }
            #expect(forward == expected)

            let unknown = "00000000-0000-4000-8000-000000000000"
            do throws(ControlError) {
                _ = try await alice.client.history(HistoryParams(peer: group.id, after: unknown))
                Issue.record("an unknown id was taken")
            } catch {
                // Bad input (65), not a usage error (found by QA: it exited 64).
                #expect(error.exitCode == 65)
                #expect(error.message == "no message \(unknown) in this conversation with ops")
            }
        }
    }

    /// `group.changed` is logged on both sides (own change and applied change), with the
    /// group and who changed it; `watch GROUP` replays only the group's events;
    /// `search --peer GROUP` finds only the group's messages, an own one once.
    @Test func groupChangesAreLoggedAndWatchAndSearchFollowAGroup() async throws {
        try await withConnectedPair { alice, bob in
            let start = try await ReadingTests.collect(bob.client, WatchParams()) { _ in true }
            let since = try #require(start.start?.cursor)
            let group = try await alice.client.groupCreate(
                GroupCreateParams(name: "ops", peers: ["bob"])
            ).group
            _ = try await alice.client.send(SendParams(peer: "#ops", text: "deploy in the group"))
            _ = try await alice.client.send(SendParams(peer: "bob", text: "deploy in private"))
            _ = try await alice.client.groupRename(GroupRenameParams(group: "ops", name: "ops-2"))
            try await eventually("bob has the rename") {
                try await bob.client.groups().groups.first?.name == "ops-2"
            }

            let followed = try await ReadingTests.collect(
                bob.client, WatchParams(peer: "#ops-2", since: since)
            ) { events in events.filter { $0.type == .groupChanged }.count == 2 }
            #expect(
                followed.events.map(\.type) == [.groupChanged, .messageReceived, .groupChanged])
            #expect(followed.events.allSatisfy { $0.group?.id == group.id })
            #expect(followed.events.first?.peer?.id == alice.id)
            #expect(followed.events.last?.group?.name == "ops-2")
            #expect(followed.events[1].message?.text == "deploy in the group")
            #expect(followed.events[1].message?.group == group.id)

            // alice logs her own changes, by herself.
            let own = try await ReadingTests.collect(
                alice.client, WatchParams(peer: group.id, since: "0")
            ) { events in events.filter { $0.type == .groupChanged }.count == 2 }
            #expect(own.events.first?.type == .groupChanged)
            #expect(own.events.first?.peer?.id == alice.id)

            let inGroup = try await bob.client.search(SearchParams(text: "deploy", peer: "#ops-2"))
            #expect(inGroup.messages.map(\.text) == ["deploy in the group"])
            let mine = try await alice.client.search(SearchParams(text: "deploy", peer: "ops-2"))
            #expect(mine.messages.map(\.text) == ["deploy in the group"])
            #expect(mine.messages.first?.recipients?.map(\.peer) == [bob.id])
            let everywhere = try await bob.client.search(SearchParams(text: "deploy"))
            #expect(everywhere.messages.count == 2)
        }
    }

    /// Naming groups beside peers: a peer's id and key tag always name the peer (whatever a
    /// member names a group), a unique prefix names a group, a prefix of a group's and a
    /// peer's name is ambiguous; our groups keep distinct names; a group with no other
    /// member sends nothing and says so; removing yourself points at `group leave`.
    @Test func groupNamesResolveBesidePeersAndStayDistinct() async throws {
        func failure(_ call: () async throws(ControlError) -> Void) async -> ControlError? {
            do throws(ControlError) {
                try await call()
                return nil
            } catch {
                return error
            }
        }
        try await withConnectedPair { alice, bob in
            let client = alice.client
            let tag = try #require(try await client.who().peers.first { $0.id == bob.id }).keyTag
            // A name shaped like a key tag or an id is refused here (a member's older daemon
            // may still send one: completion offers such a group by its id); the first 40
            // characters of an id are a name like any other.
            for name in [tag, bob.id, String(repeating: "0f", count: 16)] {
                let refused = await failure { () async throws(ControlError) in
                    _ = try await client.groupCreate(GroupCreateParams(name: name, peers: ["bob"]))
                }
                #expect(refused?.exitCode == 65, "\(name)")
            }
            _ = try await client.groupCreate(
                GroupCreateParams(name: bob.id.prefix(40).description, peers: ["bob"]))
            _ = try await client.send(SendParams(peer: tag, text: "by key tag"))
            _ = try await client.send(SendParams(peer: bob.id, text: "by id"))
            let direct = try await client.history(HistoryParams(peer: bob.id)).messages
            #expect(direct.map(\.text) == ["by key tag", "by id"])

            _ = try await client.groupCreate(GroupCreateParams(name: "team", peers: ["bob"]))
            _ = try await client.send(SendParams(peer: "tea", text: "to the team"))
            let team = try await client.history(HistoryParams(peer: "#team")).messages
            #expect(team.map(\.text) == ["to the team"])

            _ = try await client.groupCreate(GroupCreateParams(name: "bobcats", peers: ["bob"]))
            let both = await failure { () async throws(ControlError) in
                _ = try await client.send(SendParams(peer: "bo", text: "?"))
            }
            #expect(both?.exitCode == 67)
            #expect(both?.message.contains("group #bobcats") == true, "\(String(describing: both))")
            #expect(both?.message.contains("peer bob") == true)
            // Its peers come as candidates too, as a PEER's do (found by QA: none did).
            #expect(both?.data?.candidates?.map(\.id) == [bob.id])

            let taken = await failure { () async throws(ControlError) in
                _ = try await client.groupCreate(GroupCreateParams(name: "TEAM", peers: ["bob"]))
            }
            #expect(taken?.exitCode == 65)
            let renamed = await failure { () async throws(ControlError) in
                _ = try await client.groupRename(GroupRenameParams(group: "#bobcats", name: "Team"))
            }
            #expect(renamed?.exitCode == 65)
            // Renaming to the name it has changes nothing, as adding a member twice.
            let before = try #require(try await client.groups().groups.first { $0.name == "team" })
            let same = await failure { () async throws(ControlError) in
                _ = try await client.groupRename(GroupRenameParams(group: "#team", name: "team"))
            }
            #expect(same?.exitCode == 65)
            let after = try #require(try await client.groups().groups.first { $0.name == "team" })
            #expect(after.version == before.version)

            let yourself = await failure { () async throws(ControlError) in
                _ = try await client.groupRemove(
                    GroupMembersParams(group: "#team", peers: [alice.id]))
            }
            #expect(yourself?.message.contains("group leave") == true)
            _ = try await client.groupRemove(GroupMembersParams(group: "#team", peers: ["bob"]))
            let alone = await failure { () async throws(ControlError) in
                _ = try await client.send(SendParams(peer: "#team", text: "x"))
            }
            #expect(alone?.exitCode == 1 && alone?.message.contains("no other member") == true)
            let again = await failure { () async throws(ControlError) in
                _ = try await client.groupRemove(GroupMembersParams(group: "#team", peers: ["bob"]))
            }
            #expect(again?.message.hasPrefix("bob (") == true, "\(String(describing: again))")
        }
    }

    /// `--wait-read` to a group that timed out says where the copies stand: delivered to an
    /// online member who has not read it is not "queued for those away".
    @Test func aGroupWaitReadTimeoutSaysDeliveredButNotRead() async throws {
        try await withConnectedPair { alice, _ in
            _ = try await alice.client.groupCreate(GroupCreateParams(name: "ops", peers: ["bob"]))
            do throws(ControlError) {
                _ = try await alice.client.send(
                    SendParams(peer: "#ops", text: "read me", waitRead: true, timeout: 2))
                Issue.record("nobody read it, yet the wait succeeded")
            } catch {
                #expect(error.exitCode == 75)
                #expect(
                    error.message.hasSuffix("1 of 1 copies delivered but not read yet"),
                    "\(error.message)")
            }
        }
    }

    /// bob runs `--accept contacts`; alice, no contact of his, makes group #ops with him and
    /// sends "join us" to it, delivered: bob holds a group request. `body` gets the group.
    func withGroupRequest(
        _ body: (_ alice: TestNode, _ bob: TestNode, _ group: GroupInfo) async throws -> Void
    ) async throws {
        let contactsOnly: @Sendable (inout DaemonConfiguration) -> Void = { $0.accept = .contacts }
        try await withConnectedPair(bob: contactsOnly) { alice, bob in
            let group = try await alice.client.groupCreate(
                GroupCreateParams(name: "ops", peers: ["bob"])
            ).group
            _ = try await alice.client.send(
                SendParams(peer: "#ops", text: "join us", wait: true, timeout: 20))
            try await body(alice, bob, group)
        }
    }

    /// `message.status` of an own group message has the shape `history` gives it: `peer` and
    /// `sender` are our own id, the member's copy is the one recipient (QA: `peer` was the
    /// member's id and `recipients` null). The group is named by the message's id only: its
    /// object, with every member's peer object, repeated in each copy's events made 60 KB
    /// an event in a group of 256 (QA).
    @Test func anOwnGroupMessagesStatusEventIsShapedAsHistoryShowsIt() async throws {
        try await withConnectedPair { alice, bob in
            let group = try await alice.createGroup("team", members: ["bob"], seenBy: [bob])
            let head = try await ReadingTests.collect(alice.client, WatchParams()) { _ in true }
            let since = try #require(head.start?.cursor)
            let sent = try await alice.client.send(
                SendParams(peer: "#team", text: "status?", wait: true, timeout: 20))
            let id = try #require(sent.messages?.first?.id)
            let replay = try await ReadingTests.collect(alice.client, WatchParams(since: since)) {
                $0.contains { $0.message?.id == id && $0.message?.status == .delivered }
            }
            let events = replay.events.filter { $0.type == .messageStatus && $0.message?.id == id }
            #expect(!events.isEmpty)
            for event in events {
                let message = try #require(event.message)
                #expect(message.peer == alice.id && message.sender == alice.id, "\(message)")
                #expect(message.group == group.id)
                #expect(message.recipients?.map(\.peer) == [bob.id], "\(message)")
                #expect(message.recipients?.first?.status == message.status)
                #expect(event.peer?.id == bob.id)
                #expect(event.group == nil)
            }
        }
    }

    /// A pending group request's messages are held from `watch` as a peer request's are
    /// (its `group.changed` is what announces it), and show once it is accepted.
    @Test func watchHoldsAGroupRequestsMessagesUntilAccepted() async throws {
        try await withGroupRequest { alice, bob, group in
            // A change after the message: its group.changed is the last event to wait for.
            _ = try await alice.client.groupRename(GroupRenameParams(group: "#ops", name: "ops2"))
            try await eventually("bob has the new name") {
                try await bob.client.groups().groups.first?.name == "ops2"
            }
            var requestMarks: [Bool?] = []
            var followed: String?
            func replayed() async throws -> [EventType] {
                var types: [EventType] = []
                var changes = 0
                requestMarks = []
                for try await update in bob.client.watch(
                    WatchParams(peer: group.id, since: "0000000000000000"))
                {
                    if case .started(let result) = update { followed = result.followed }
                    guard case .event(let event) = update else { continue }
                    types.append(event.type)
                    if event.type == .groupChanged {
                        changes += 1
                        requestMarks.append(event.group?.request)
                    }
                    if changes == 2 { break }
                }
                return types
            }
            #expect(try await replayed() == [.groupChanged, .groupChanged])
            // The group object says it is a request, as `groups` does (found by QA).
            #expect(requestMarks == [true, true])
            // The answer names the group by its id, to watch again after a rename.
            #expect(followed == group.id)
            _ = try await bob.client.accept(PeerParams(peer: "#ops2"))
            #expect(try await replayed() == [.groupChanged, .messageReceived, .groupChanged])
            #expect(requestMarks == [nil, nil])
        }
    }

    /// Where a group would do, a name that matches nothing says both were looked for; where
    /// only a peer would (`verify`), it says a peer.
    @Test func anUnknownNameSaysWhatWasLookedFor() async throws {
        try await withConnectedPair { alice, _ in
            let client = alice.client
            let calls: [(String, () async throws(ControlError) -> Void)] = [
                (
                    "send",
                    { () async throws(ControlError) in
                        _ = try await client.send(SendParams(peer: "nobody", text: "hi"))
                    }
                ),
                (
                    "history",
                    { () async throws(ControlError) in
                        _ = try await client.history(HistoryParams(peer: "nobody"))
                    }
                ),
                (
                    "read",
                    { () async throws(ControlError) in
                        _ = try await client.read(ReadParams(peer: "nobody"))
                    }
                ),
                (
                    "archive",
                    { () async throws(ControlError) in
                        _ = try await client.archive(ArchiveParams(peer: "nobody"))
                    }
                ),
            ]
            for (method, call) in calls {
                do throws(ControlError) {
                    try await call()
                    Issue.record("\(method) to nobody was accepted")
                } catch {
                    #expect(error.exitCode == 67, "\(method)")
                    #expect(error.message == "no peer or group matches 'nobody'", "\(method)")
                }
            }
            do throws(ControlError) {
                _ = try await client.verify(VerifyParams(peer: "nobody"))
                Issue.record("verify nobody was accepted")
            } catch {
                #expect(error.message == "no peer matches 'nobody'")
            }
        }
    }

    /// A group request we left is nothing to accept: `groups` no longer offers it, marks it
    /// left, and `accept` says why it cannot.
    @Test func aGroupRequestLeftIsNoLongerOffered() async throws {
        let contactsOnly: @Sendable (inout DaemonConfiguration) -> Void = { $0.accept = .contacts }
        try await withConnectedPair(bob: contactsOnly) { alice, bob in
            _ = try await alice.client.groupCreate(GroupCreateParams(name: "ops", peers: ["bob"]))
            try await eventually("bob holds the request") {
                try await bob.client.groups().groups.first?.request == true
            }
            #expect(try await bob.client.groups().groups.first?.left == nil)
            _ = try await bob.client.groupLeave(GroupParams(group: "#ops"))
            let left = try await bob.client.groups().groups.first
            #expect(left?.request == nil && left?.left == true)
            #expect(try await alice.client.groups().groups.first?.left == nil)
            do throws(ControlError) {
                _ = try await bob.client.accept(PeerParams(peer: "#ops"))
                Issue.record("a group left was accepted")
            } catch {
                #expect(error.exitCode == 1 && error.message.contains("not a member"))
            }
        }
    }

    /// Issue 13 item 3, `--accept contacts`: a group a non-contact adds us to is a group
    /// request: listed by `groups` as one, its messages out of the inbox and the unread
    /// count, and no peer request for its sender; `accept GROUP` brings the conversation in.
    /// A group from a contact is taken at once.
    @Test func underAcceptContactsAGroupFromANonContactIsARequest() async throws {
        try await withGroupRequest { alice, bob, group in
            let held = try #require(try await bob.client.groups().groups.first)
            #expect(held.id == group.id && held.request == true)
            #expect(try await bob.client.inbox().conversations.isEmpty)
            #expect(try await bob.client.status().unread == 0)
            #expect(try await bob.client.contacts().requests.isEmpty)
            // Not read before it is accepted: neither by reading everything nor by name, so
            // no READ tells the non-contact it was.
            #expect(try await bob.client.read().messages.isEmpty)
            do throws(ControlError) {
                _ = try await bob.client.read(ReadParams(peer: "#ops"))
                Issue.record("a group request was read")
            } catch {
                #expect(error.exitCode == 1)
                #expect(error.message.contains("accept"), "\(error.message)")
            }

            let accepted = try await bob.client.accept(PeerParams(peer: "#ops"))
            #expect(accepted.group?.id == group.id)
            #expect(accepted.peer.id == alice.id)
            #expect(try await bob.client.groups().groups.first?.request == nil)
            let inbox = try await bob.client.inbox().conversations
            #expect(inbox.map(\.group?.id) == [group.id])
            #expect(inbox.first?.unread == 1)
            #expect(try await bob.client.status().unread == 1)
            #expect(try await bob.client.read().messages.map(\.text) == ["join us"])
            do throws(ControlError) {
                _ = try await bob.client.accept(PeerParams(peer: "#ops"))
                Issue.record("a group accepted twice")
            } catch {
                #expect(error.exitCode == 1)
            }

            // bob writes to alice: a contact now, so her next group is no request.
            _ = try await bob.client.send(SendParams(peer: "alice", text: "hi"))
            let second = try await alice.client.groupCreate(
                GroupCreateParams(name: "build", peers: ["bob"])
            ).group
            try await eventually("bob has the second group") {
                try await bob.client.groups().groups.contains { $0.id == second.id }
            }
            #expect(
                try await bob.client.groups().groups.first { $0.id == second.id }?.request == nil)
        }
    }
}
