import Foundation
import LanChatClient
import LanChatControl
import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

/// Issue 13's acceptance for membership (PROTOCOL.md §9.7) inside the daemon: a link applies
/// a GROUP only from a current member and only when it is newer; and concurrent changes by
/// two members converge to one state on every node.
@Suite("Group membership in the daemon", .serialized, .timeLimit(.minutes(3)))
struct GroupMembershipTests {
    static let carol = PeerKey(bytes: [UInt8](repeating: 0x33, count: 31) + [0x03])
    static let groupID = GroupID(bytes: [UInt8](repeating: 0x0A, count: 16))

    /// A group we hold at `version` with `members`, stored as our own change would be.
    static func hold(
        _ harness: PeerLinkTests.Harness, version: UInt64, members: [PeerKey], name: String
    ) async throws -> GroupUpdate {
        let id = try #require(groupID)
        let state = GroupUpdate(id: id, version: version, name: name, members: members)
        let own = try #require(LinkPhaseTests.own)
        for member in members where member != own {
            if member != harness.peer {
                try await harness.store.addPeer(member, keyTag: "TAG", name: "m", at: 1)
            }
        }
        let saved = try await harness.store.saveGroup(
            StoredGroup(state: state, basis: [], updatedAt: 1),
            recipients: members.filter { $0 != own }, expectedVersion: nil, changedBy: own)
        #expect(saved)
        return state
    }

    @Test func aGroupFromANonMemberIsIgnored() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        // bob (the link's peer) is not a member of our group.
        let held = try await Self.hold(harness, version: 1, members: [own, carol], name: "ops")
        let (session, _) = try await harness.established("s1")

        let takeover = GroupUpdate(
            id: held.id, version: 5, name: "mine now", members: [own, carol, harness.peer])
        await harness.link.received([.group(takeover)], on: session)
        #expect(try await harness.store.group(held.id)?.state == held)

        // A group we do not know is taken only from one of its members: one that does not
        // list its sender is not an invitation.
        let unknownID = try #require(GroupID(bytes: [UInt8](repeating: 0x0B, count: 16)))
        let notHis = GroupUpdate(id: unknownID, version: 1, name: "x", members: [own, carol])
        await harness.link.received([.group(notHis)], on: session)
        #expect(try await harness.store.group(unknownID) == nil)
        #expect(session.closeReason == nil)
        await harness.stop()
    }

    /// PROTOCOL.md §3.7: groups only behind their capability bit. A peer whose session did
    /// not negotiate it cannot add us to a group (we could never send to it there); the
    /// same GROUP on a session that did is applied.
    @Test func aGroupOnASessionWithoutTheGroupsCapabilityIsIgnored() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let own = try #require(LinkPhaseTests.own)
        let id = try #require(GroupID(bytes: [UInt8](repeating: 0x0C, count: 16)))
        let invitation = GroupUpdate(id: id, version: 1, name: "x", members: [harness.peer, own])
        let (plain, _) = try await harness.established("plain", capabilities: 0)
        await harness.link.received([.group(invitation)], on: plain)
        #expect(try await harness.store.group(id) == nil)
        #expect(plain.closeReason == nil)
        let (capable, _) = try await harness.established("capable")
        await harness.link.received([.group(invitation)], on: capable)
        let applied = try #require(try await harness.store.group(id)?.state)
        #expect(applied.version == 1 && Set(applied.members) == Set(invitation.members))
        await harness.stop()
    }

    /// PROTOCOL.md §7.1: a low-order key never completes a handshake, so a GROUP listing one
    /// is malformed (QA: the all-zero key became a member no copy could ever reach).
    @Test func aGroupWithALowOrderMemberClosesTheSession() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let own = try #require(LinkPhaseTests.own)
        let zero = try #require(PeerKey(bytes: [UInt8](repeating: 0, count: 32)))
        let id = try #require(GroupID(bytes: [UInt8](repeating: 0x0D, count: 16)))
        let (session, _) = try await harness.established("s1")
        await harness.link.received(
            [
                .group(
                    GroupUpdate(id: id, version: 1, name: "x", members: [harness.peer, own, zero]))
            ],
            on: session)
        #expect(session.closeReason == .protocolError)
        #expect(try await harness.store.group(id) == nil)
        await harness.stop()
    }

    @Test func aStaleVersionIsIgnoredAndANewerOneApplied() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        let held = try await Self.hold(
            harness, version: 3, members: [own, harness.peer, carol], name: "ops")
        let (session, _) = try await harness.established("s1")

        let older = GroupUpdate(
            id: held.id, version: 2, name: "old name", members: [own, harness.peer])
        await harness.link.received([.group(older)], on: session)
        #expect(try await harness.store.group(held.id)?.state == held)

        let newer = GroupUpdate(id: held.id, version: 4, name: "new name", members: held.members)
        await harness.link.received([.group(newer)], on: session)
        #expect(try await harness.store.group(held.id)?.state.name == "new name")
        // The stale one again, after: still ignored.
        await harness.link.received([.group(older)], on: session)
        #expect(try await harness.store.group(held.id)?.state.version == 4)
        await harness.stop()
    }

    /// Our change, made while the members were apart, meets a higher version made without
    /// it: the higher version stands (no history tells "made without" from "undone"), and
    /// the daemon says so (found by QA: a removal made while apart vanished without a word).
    @Test func anOwnChangeAHigherVersionHasNotGotIsSaid() async throws {
        let log = CapturedLog()
        let harness = try await PeerLinkTests.Harness.start(logger: log.logger)
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        let id = try #require(Self.groupID)
        try await harness.store.addPeer(carol, keyTag: "TAG", name: "m", at: 1)
        // Version 3 is ours: carol removed from version 2's three members.
        let ours = GroupUpdate(id: id, version: 3, name: "ops", members: [own, harness.peer])
        #expect(
            try await harness.store.saveGroup(
                StoredGroup(state: ours, basis: [own, harness.peer, carol], updatedAt: 1),
                recipients: [harness.peer, carol], expectedVersion: nil, changedBy: own))
        let (session, _) = try await harness.established("s1")
        let withOurs = GroupUpdate(id: id, version: 4, name: "ops4", members: ours.members)
        await harness.link.received([.group(withOurs)], on: session)
        #expect(try await harness.store.group(id)?.state.version == 4)
        #expect(!log.messages.contains { $0.contains("does not have our change") })

        // Ours again at 4 (as if nothing came), then a 6 built on 2 by the peer: carol back.
        let again = GroupUpdate(id: id, version: 5, name: "ops4", members: [own, harness.peer])
        let stored = try #require(try await harness.store.group(id))
        _ = try await harness.store.saveGroup(
            StoredGroup(state: again, basis: [own, harness.peer, carol], updatedAt: 2),
            recipients: [harness.peer], expectedVersion: stored.state.version, changedBy: own)
        let without = GroupUpdate(
            id: id, version: 6, name: "ops6", members: [own, harness.peer, carol])
        await harness.link.received([.group(without)], on: session)
        #expect(try await harness.store.group(id)?.state == without)
        #expect(
            log.messages.contains {
                $0.contains("version 6 from")
                    && $0.contains("does not have our change of version 5")
            }, "\(log.messages)")
        await harness.stop()
    }

    /// A member blocked while its session is still up (`block` closes it; a batch may come
    /// first): its GROUP changes nothing and its group MSG is not stored, like its 1:1 ones.
    @Test func aGroupOrGroupMessageFromABlockedMemberIsNotStored() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        let held = try await Self.hold(
            harness, version: 1, members: [own, harness.peer, carol], name: "ops")
        let (session, _) = try await harness.established("s1")
        _ = try await harness.link.services.directory.block(harness.peer)

        let renamed = GroupUpdate(id: held.id, version: 2, name: "theirs", members: held.members)
        await harness.link.received([.group(renamed)], on: session)
        #expect(try await harness.store.group(held.id)?.state == held)
        let message = WireMessage(
            stream: 77, seq: 1, id: .random(), sentAt: 1_000, group: held.id.bytes, text: "hi")
        await harness.link.received([.message(message)], on: session)
        #expect(try await harness.store.groupHistory(held.id, limit: 10).messages.isEmpty)
        #expect(session.closeReason != nil)
        await harness.stop()
    }

    /// A group queued while the peer's HELLO is being applied still reaches the peer on that
    /// session. The HELLO read the frames to send before it established the session, and a
    /// frame queued in between was sent on neither (caught as a rare failure of
    /// `concurrentChangesByTwoMembersConvergeOnEveryNode`). The two race in every round; no
    /// order of them may lose the frame.
    @Test func aGroupQueuedWhileTheHelloIsAppliedIsSentOnThatSession() async throws {
        for round in 0..<200 {
            let harness = try await PeerLinkTests.Harness.start()
            let session = harness.session("s\(round)")
            var writes = session.writes.makeAsyncIterator()
            #expect(await harness.link.attach(session))
            _ = await writes.next()  // our HELLO
            async let hello: Void = harness.link.received(
                [.hello(PeerLinkTests.Harness.hello())], on: session)
            async let queued = Self.queueGroup(on: harness)
            let state = try await queued
            await hello
            await session.close(.normal)
            var sent: [GroupUpdate] = []
            while let write = await writes.next() {
                guard case .control(let messages) = write else { continue }
                for case .group(let update) in messages { sent.append(update) }
            }
            #expect(sent.contains(state), "round \(round): the GROUP was never sent")
            await harness.stop()
        }
    }

    /// A member invited and then removed while it was offline (found by QA): it is sent the
    /// frame that last listed it before the one that removed it. The removal alone lists
    /// neither it nor an invitation, so it refused the group, and then, as "not from a
    /// member", the messages sent to it while it was one.
    @Test func aMemberRemovedBeforeItCameBackGetsItsMembershipFirst() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        let invited = try await Self.hold(
            harness, version: 1, members: [own, harness.peer, carol], name: "ops")
        let removed = try #require(GroupConvergence.next(after: invited, members: [own, carol]))
        #expect(
            try await harness.store.saveGroup(
                StoredGroup(state: removed, basis: invited.members, updatedAt: 2),
                recipients: [harness.peer, carol], expectedVersion: 1, changedBy: own))
        #expect(try await harness.store.groupFrames(for: harness.peer) == [invited, removed])
        #expect(try await harness.store.groupFrames(for: carol) == [removed])

        let session = harness.session("s1")
        var writes = session.writes.makeAsyncIterator()
        #expect(await harness.link.attach(session))
        _ = await writes.next()  // our HELLO
        await harness.link.received([.hello(PeerLinkTests.Harness.hello())], on: session)
        await session.close(.normal)
        var sent: [GroupUpdate] = []
        while let write = await writes.next() {
            guard case .control(let messages) = write else { continue }
            for case .group(let update) in messages { sent.append(update) }
        }
        #expect(sent == [invited, removed])

        // Re-added later: the frame lists it again, and the old membership is not sent.
        let back = try #require(
            GroupConvergence.next(after: removed, members: [own, harness.peer, carol]))
        #expect(
            try await harness.store.saveGroup(
                StoredGroup(state: back, basis: removed.members, updatedAt: 3),
                recipients: [harness.peer, carol], expectedVersion: 2, changedBy: own))
        #expect(try await harness.store.groupFrames(for: harness.peer) == [back])
        await harness.stop()
    }

    /// The other side: both frames taken in order, a group it holds without itself, and a
    /// message its sender sent while it was a member is stored, not refused.
    @Test func aMembershipThenItsRemovalAreBothTakenAndTheMessagesBetweenKept() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        try await harness.store.addPeer(carol, keyTag: "TAG", name: "m", at: 1)
        let (session, _) = try await harness.established("s1")
        let id = try #require(Self.groupID)
        let invited = GroupUpdate(
            id: id, version: 1, name: "ops", members: [own, harness.peer, carol])
        let removed = try #require(
            GroupConvergence.next(after: invited, members: [harness.peer, carol]))
        await harness.link.received([.group(invited), .group(removed)], on: session)
        #expect(try await harness.store.group(id)?.state == removed)
        #expect(session.closeReason == nil)
        await harness.stop()
    }

    /// A member removed may still have messages on their way when the removal is made: they
    /// are taken for a while; a message it sends later is refused (found by QA: a removed
    /// member could post for as long as no later change came).
    @Test(.timeLimit(.minutes(1)))
    func aRemovedMembersMessageIsTakenOnlyShortlyAfterItsRemoval() async throws {
        let clock = ManualClock()
        let harness = try await PeerLinkTests.Harness.start(clock: clock.daemonClock)
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        try await harness.store.addPeer(carol, keyTag: "TAG", name: "m", at: 1)
        let id = try #require(Self.groupID)
        let invited = GroupUpdate(
            id: id, version: 1, name: "ops", members: [own, harness.peer, carol])
        let removed = try #require(GroupConvergence.next(after: invited, members: [own, carol]))
        #expect(
            try await harness.store.saveGroup(
                StoredGroup(
                    state: removed, basis: invited.members,
                    updatedAt: clock.daemonClock.wallMilliseconds()),
                recipients: [carol], expectedVersion: nil, changedBy: own))
        var (session, writes) = try await harness.established("s1")
        func groupMessage(_ seq: UInt64) -> AppMessage {
            .message(
                WireMessage(
                    stream: 77, seq: seq, id: MessageID.random(), sentAt: 1_000,
                    group: id.bytes, text: "from the removed member"))
        }
        await harness.link.received([groupMessage(1)], on: session)
        guard case .control(let first) = await writes.next() else {
            Issue.record("an answer must be written")
            return
        }
        #expect(first == [.ack(stream: 77, delivered: 1)], "\(first)")
        clock.advance(by: .seconds(Int64(PeerLink.removalGrace / 1000) + 1))
        await harness.link.received([groupMessage(2)], on: session)
        guard case .control(let second) = await writes.next() else {
            Issue.record("an answer must be written")
            return
        }
        #expect(second.contains(.reject(stream: 77, seq: 2, reason: .refusedByPolicy)), "\(second)")
        await harness.stop()
    }

    /// Removed (or gone), we take nothing sent to the group after we learnt of it, though a
    /// member out of touch still sends (found by QA: a removed member kept receiving); what
    /// was sent before, crossing the change, is kept.
    @Test func nothingSentAfterOurRemovalIsTaken() async throws {
        let clock = ManualClock()
        let harness = try await PeerLinkTests.Harness.start(clock: clock.daemonClock)
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        try await harness.store.addPeer(carol, keyTag: "TAG", name: "m", at: 1)
        let id = try #require(Self.groupID)
        let invited = GroupUpdate(
            id: id, version: 1, name: "ops", members: [own, harness.peer, carol])
        let removed = try #require(
            GroupConvergence.next(after: invited, members: [harness.peer, carol]))
        let learnt = clock.daemonClock.wallMilliseconds()
        #expect(
            try await harness.store.saveGroup(
                StoredGroup(state: removed, basis: invited.members, updatedAt: learnt),
                recipients: [], expectedVersion: nil, changedBy: carol))
        var (session, writes) = try await harness.established("s1")
        func groupMessage(_ seq: UInt64, sentAt: Int64) -> AppMessage {
            .message(
                WireMessage(
                    stream: 77, seq: seq, id: MessageID.random(), sentAt: sentAt,
                    group: id.bytes, text: "to the group"))
        }
        await harness.link.received([groupMessage(1, sentAt: learnt - 1)], on: session)
        guard case .control(let first) = await writes.next() else {
            Issue.record("an answer must be written")
            return
        }
        #expect(first == [.ack(stream: 77, delivered: 1)], "\(first)")
        await harness.link.received([groupMessage(2, sentAt: learnt + 1)], on: session)
        guard case .control(let second) = await writes.next() else {
            Issue.record("an answer must be written")
            return
        }
        #expect(second.contains(.reject(stream: 77, seq: 2, reason: .refusedByPolicy)), "\(second)")
        let kept = try await harness.store.groupHistory(id, limit: 10).messages.map(\.text)
        #expect(kept == ["to the group"])
        await harness.stop()
    }

    /// `--accept contacts`: a group that reached us first from a non-contact member (carol,
    /// passing it on) is a request; the same group sent by a contact who is a member is not
    /// one any more, whichever copy came first (found by QA: it depended on the order).
    @Test func aGroupRequestAContactMemberAlsoSendsIsAccepted() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let (own, carol) = (try #require(LinkPhaseTests.own), try #require(Self.carol))
        try await harness.store.addPeer(carol, keyTag: "TAG", name: "carol", at: 1)
        let id = try #require(Self.groupID)
        let state = GroupUpdate(
            id: id, version: 1, name: "ops", members: [own, harness.peer, carol])
        #expect(
            try await harness.store.saveGroup(
                StoredGroup(state: state, basis: [], updatedAt: 1, requestFrom: carol),
                recipients: [harness.peer, carol], expectedVersion: nil, changedBy: carol))
        let (session, _) = try await harness.established("s1")

        // Not yet a contact: its copy changes nothing.
        await harness.link.received([.group(state)], on: session)
        #expect(try await harness.store.group(id)?.requestFrom == carol)
        _ = try await harness.link.services.directory.makeContact(harness.peer)
        await harness.link.received([.group(state)], on: session)
        #expect(try await harness.store.group(id)?.requestFrom == nil)
        await harness.stop()
    }

    /// A change of one group sends that group's frames, not every group the peer shares
    /// (found by review: n groups cost n² frames).
    @Test func aChangeSendsOnlyThatGroupsFrame() async throws {
        let harness = try await PeerLinkTests.Harness.start()
        let own = try #require(LinkPhaseTests.own)
        let first = try await Self.hold(
            harness, version: 1, members: [own, harness.peer], name: "ops")
        let otherID = try #require(GroupID(bytes: [UInt8](repeating: 0x0D, count: 16)))
        let other = GroupUpdate(id: otherID, version: 1, name: "dev", members: [own, harness.peer])
        #expect(
            try await harness.store.saveGroup(
                StoredGroup(state: other, basis: [], updatedAt: 1), recipients: [harness.peer],
                expectedVersion: nil, changedBy: own))
        var (_, writes) = try await harness.established("s1")
        // The session's start sends both.
        guard case .control(let atStart) = await writes.next() else {
            Issue.record("the session's start must send the groups")
            return
        }
        #expect(
            atStart.count == 2 && atStart.contains(.group(first)) && atStart.contains(.group(other))
        )
        await harness.link.sendGroupFrames(of: otherID)
        #expect(await writes.next() == .control([.group(other)]))
        await harness.stop()
    }

    /// Stores a group with the link's peer and asks the link to send it, as
    /// `GroupPublisher` does.
    static func queueGroup(on harness: PeerLinkTests.Harness) async throws -> GroupUpdate {
        let own = try #require(LinkPhaseTests.own)
        let state = try await hold(harness, version: 1, members: [own, harness.peer], name: "ops")
        await harness.link.sendGroupFrames()
        return state
    }

    /// alice creates a group with bob and carol, then goes away; bob and carol (who have no
    /// session with each other) each change the group at the same version: bob adds dave,
    /// carol adds erin. When alice is back she gets both, keeps the winner of the
    /// equal-version rule and passes it on; the member whose change lost makes it again on
    /// top (found by QA: a `group add` that exited 0 was silently undone), so all three end
    /// with the same version 3, holding both changes.
    @Test func concurrentChangesByTwoMembersConvergeOnEveryNode() async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let alice = try await TestNode.start("alice", in: root)
        let bob = try await TestNode.start("bob", peers: [alice], in: root)
        let carol = try await TestNode.start("carol", peers: [alice], in: root)
        let nodes = [alice, bob, carol]
        do {
            try await eventually("everyone online with alice", timeout: .seconds(20)) {
                let bobOnline = await alice.isOnline(bob)
                let carolOnline = await alice.isOnline(carol)
                return bobOnline && carolOnline
            }
            let group = try await alice.createGroup(
                "ops", members: ["bob", "carol"], seenBy: [bob, carol])
            try await alice.stopAndWaitOffline(seenBy: bob)
            try await eventually("carol sees alice offline") { await !carol.isOnline(alice) }

            let dave = try #require(PeerKey(bytes: [UInt8](repeating: 0x44, count: 32))).id
            let erin = try #require(PeerKey(bytes: [UInt8](repeating: 0x55, count: 32))).id
            _ = try await bob.client.add(AddParams(name: "dave", id: dave))
            _ = try await carol.client.add(AddParams(name: "erin", id: erin))
            let byBob = try await bob.client.groupAdd(
                GroupMembersParams(group: group.id, peers: ["dave"])
            ).group
            let byCarol = try await carol.client.groupAdd(
                GroupMembersParams(group: group.id, peers: ["erin"])
            ).group
            #expect(byBob.version == 2 && byCarol.version == 2)
            #expect(Set(byBob.members.map(\.id)) != Set(byCarol.members.map(\.id)))

            try await alice.restart()
            func state(_ node: TestNode) async throws -> (UInt64, Set<String>)? {
                try await node.client.groups().groups.first { $0.id == group.id }.map {
                    ($0.version, Set($0.members.map(\.id)))
                }
            }
            try await eventually("every node holds the same group", timeout: .seconds(30)) {
                let states = try await [state(alice), state(bob), state(carol)]
                guard let first = states[0] else { return false }
                return states.allSatisfy { $0?.0 == first.0 && $0?.1 == first.1 }
            }
            try await eventually("both changes made", timeout: .seconds(30)) {
                try await state(alice)?.0 == 3
            }
            try await eventually("every node holds version 3", timeout: .seconds(30)) {
                let states = try await [state(alice), state(bob), state(carol)]
                return states.allSatisfy { $0?.0 == 3 }
            }
            let final = try #require(try await state(alice))
            #expect(final.1 == Set(byBob.members.map(\.id)).union(byCarol.members.map(\.id)))
            #expect(final.1.contains(dave) && final.1.contains(erin))
        } catch {
            for node in nodes { await node.stop() }
            throw error
        }
        for node in nodes { await node.stop() }
    }
}
