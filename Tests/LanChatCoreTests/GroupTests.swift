import Testing

@testable import LanChatCore

/// Keys for group tests: canonical (bit 255 clear), distinct by their first byte.
enum GroupKeys {
    static func key(_ index: UInt8) -> PeerKey {
        guard let key = PeerKey(bytes: [index] + [UInt8](repeating: 0, count: 31)) else {
            preconditionFailure("a 32-byte key with bit 255 clear is canonical")
        }
        return key
    }
    static let alice = key(1)
    static let bob = key(2)
    static let carol = key(3)
    static let dave = key(4)
    static let erin = key(5)
    static let mallory = key(9)
    static let id: GroupID = {
        guard let id = GroupID(bytes: [UInt8](repeating: 0x5A, count: 16)) else {
            preconditionFailure("16 bytes are a group id")
        }
        return id
    }()
}

@Suite("GROUP kind codec (PROTOCOL.md §9.7)")
struct GroupCodecTests {
    typealias K = GroupKeys

    static let group = GroupUpdate(
        id: K.id, version: 7, name: "ops ✓", members: [K.carol, K.alice, K.bob])

    @Test func groupRoundTripsAndKeepsItsLayout() throws {
        let bytes = AppMessage.group(Self.group).encoded()
        #expect(bytes.first == 0x08)
        // kind · id 16 · version 8 · name (4 + 7 bytes) · count 2 · 3 × 32
        #expect(bytes.count == 1 + 16 + 8 + 4 + 7 + 2 + 3 * 32)
        #expect(Array(bytes[1..<17]) == K.id.bytes)
        #expect(Array(bytes[25..<29]) == [0, 0, 0, 7])
        #expect(try AppMessage.decode(bytes) == .group(Self.group))
    }

    @Test func groupFlaggedMessageCarriesTheGroupIDBeforeText() throws {
        let message = WireMessage(
            stream: 1, seq: 2, id: MessageID.random(), sentAt: 3, group: K.id.bytes, text: "hi")
        let bytes = AppMessage.message(message).encoded()
        let flagsOffset = 41
        #expect(bytes[flagsOffset] == 0x01)
        let groupBytes = Array(bytes[(flagsOffset + 1)..<(flagsOffset + 17)])
        #expect(groupBytes == K.id.bytes)
        #expect(try AppMessage.decode(bytes) == .message(message))
    }

    @Test func malformedGroupsAreProtocolErrors() {
        let bytes = AppMessage.group(Self.group).encoded()
        let countOffset = 1 + 16 + 8 + 4 + 7
        #expect(throws: AppCodecError.truncated) { try AppMessage.decode(Array(bytes.dropLast())) }
        #expect(throws: AppCodecError.truncated) { try AppMessage.decode(Array(bytes.prefix(20))) }
        #expect(throws: AppCodecError.trailingBytes(1)) { try AppMessage.decode(bytes + [0]) }
        var duplicate = bytes
        duplicate.replaceSubrange(
            (countOffset + 2 + 32)..<(countOffset + 2 + 64), with: K.carol.bytes)
        #expect(throws: AppCodecError.duplicateMember) { try AppMessage.decode(duplicate) }
        var badKey = bytes
        badKey.replaceSubrange(
            (countOffset + 2)..<(countOffset + 2 + 32), with: [UInt8](repeating: 0xFF, count: 32))
        #expect(throws: AppCodecError.invalidMemberKey) { try AppMessage.decode(badKey) }
        var tooMany = bytes
        tooMany.replaceSubrange(countOffset..<(countOffset + 2), with: [0x01, 0x01])
        #expect(throws: AppCodecError.tooManyMembers(257)) { try AppMessage.decode(tooMany) }
        let longName = GroupUpdate(
            id: K.id, version: 1, name: String(repeating: "n", count: 65), members: [K.alice])
        #expect(throws: AppCodecError.fieldTooLong(65)) {
            try AppMessage.decode(AppMessage.group(longName).encoded())
        }
        var badUTF8 = bytes
        badUTF8[1 + 16 + 8 + 4] = 0xFF
        #expect(throws: AppCodecError.invalidUTF8) { try AppMessage.decode(badUTF8) }
        // No `group create` makes a blank name, and no '#name' reaches it (QA pass 9).
        for blank in ["", "   "] {
            let unnamed = GroupUpdate(id: K.id, version: 1, name: blank, members: [K.alice])
            #expect(throws: AppCodecError.blankGroupName) {
                try AppMessage.decode(AppMessage.group(unnamed).encoded())
            }
        }
    }

    @Test func exactly256MembersDecode() throws {
        let members = (0..<256).map { index in
            PeerKey(
                bytes: [UInt8(index % 256), UInt8(index / 256 + 1)]
                    + [UInt8](repeating: 0, count: 30))!
        }
        let group = GroupUpdate(id: K.id, version: 1, name: "all", members: members)
        #expect(try AppMessage.decode(AppMessage.group(group).encoded()) == .group(group))
    }

    @Test func groupIDHexRoundTrips() {
        #expect(K.id.hex == String(repeating: "5a", count: 16))
        #expect(GroupID(hex: K.id.hex.uppercased()) == K.id)
        #expect(GroupID(hex: "5a") == nil)
        #expect(GroupID(hex: String(repeating: "zz", count: 16)) == nil)
    }
}

@Suite("Group convergence (PROTOCOL.md §9.7)")
struct GroupConvergenceTests {
    typealias K = GroupKeys

    static let v5 = GroupUpdate(
        id: K.id, version: 5, name: "ops", members: [K.alice, K.bob, K.carol, K.dave])

    @Test func higherVersionFromAMemberApplies() throws {
        let next = try #require(GroupConvergence.next(after: Self.v5, name: "ops2"))
        #expect(
            GroupConvergence.decide(next, from: K.bob, local: Self.v5, basis: [], ownKey: K.carol)
                == .apply)
    }

    /// Found by review: a GROUP at 2^64 − 1 was taken, and the next local change trapped.
    @Test func aVersionJumpingTooFarIsRefused() {
        let step = GroupConvergence.largestVersionStep
        func at(_ version: UInt64) -> GroupUpdate {
            GroupUpdate(id: K.id, version: version, name: "ops", members: Self.v5.members)
        }
        #expect(
            GroupConvergence.decide(at(.max), from: K.bob, local: nil, basis: [], ownKey: K.carol)
                == .versionJump)
        #expect(
            GroupConvergence.decide(at(step), from: K.bob, local: nil, basis: [], ownKey: K.carol)
                == .apply)
        #expect(
            GroupConvergence.decide(
                at(5 + step + 1), from: K.bob, local: Self.v5, basis: [], ownKey: K.carol)
                == .versionJump)
        #expect(
            GroupConvergence.decide(
                at(5 + step), from: K.bob, local: Self.v5, basis: [], ownKey: K.carol) == .apply)
        // A non-member's jump is still a non-member's GROUP first.
        #expect(
            GroupConvergence.decide(
                at(.max), from: K.mallory, local: Self.v5, basis: [], ownKey: K.carol)
                == .notFromMember)
    }

    @Test func atTheTopOfTheRangeThereIsNoNextVersion() {
        let top = GroupUpdate(id: K.id, version: .max, name: "ops", members: Self.v5.members)
        #expect(GroupConvergence.next(after: top, name: "ops2") == nil)
        let winner = GroupUpdate(id: K.id, version: .max, name: "x", members: Self.v5.members)
        #expect(
            GroupConvergence.reapply(top, basis: top.members, onto: winner, own: K.alice) == nil)
    }

    @Test func groupFromANonMemberIsIgnored() {
        let forged = GroupUpdate(
            id: K.id, version: 99, name: "pwned", members: [K.mallory, K.carol])
        #expect(
            GroupConvergence.decide(
                forged, from: K.mallory, local: Self.v5, basis: [], ownKey: K.carol)
                == .notFromMember)
    }

    @Test func staleVersionIsIgnored() {
        let older = GroupUpdate(id: K.id, version: 4, name: "old", members: [K.alice, K.bob])
        #expect(
            GroupConvergence.decide(older, from: K.alice, local: Self.v5, basis: [], ownKey: K.bob)
                == .stale)
        #expect(
            GroupConvergence.decide(
                Self.v5, from: K.alice, local: Self.v5, basis: [], ownKey: K.bob)
                == .alreadyHeld)
    }

    @Test func unknownGroupIsTakenOnlyAsAnInvitation() {
        #expect(
            GroupConvergence.decide(Self.v5, from: K.alice, local: nil, basis: [], ownKey: K.bob)
                == .apply)
        #expect(
            GroupConvergence.decide(
                Self.v5, from: K.alice, local: nil, basis: [], ownKey: K.mallory)
                == .notInvited)
        #expect(
            GroupConvergence.decide(
                Self.v5, from: K.mallory, local: nil, basis: [], ownKey: K.bob)
                == .notInvited)
    }

    /// Alice removes Bob while Bob renames the group, both from version 5: every node, in
    /// whichever order the two version-6 states reach it, ends with the same state.
    @Test func concurrentChangesConvergeOnEveryNodeInEveryOrder() throws {
        let aliceChange = try #require(
            GroupConvergence.next(
                after: Self.v5, members: [K.alice, K.carol, K.dave]))
        let bobChange = try #require(GroupConvergence.next(after: Self.v5, name: "ops-renamed"))
        let changes = [(K.alice, aliceChange), (K.bob, bobChange)]
        var finals: [GroupUpdate] = []
        for node in [K.alice, K.bob, K.carol, K.dave] {
            for order in [changes, Array(changes.reversed())] {
                var local = Self.v5
                var basis: [PeerKey] = []
                // A node's own change is already its state before the other arrives.
                if let own = order.first(where: { $0.0 == node }) {
                    basis = local.members
                    local = own.1
                }
                for (sender, update) in order where sender != node {
                    if GroupConvergence.decide(
                        update, from: sender, local: local, basis: basis, ownKey: node) == .apply
                    {
                        if update.version > local.version { basis = local.members }
                        local = update
                    }
                }
                finals.append(local)
            }
        }
        #expect(Set(finals.map(\.canonicalEncoding)).count == 1)
        // The winner is the greater canonical encoding.
        let winner =
            aliceChange.canonicalEncoding.lexicographicallyPrecedes(bobChange.canonicalEncoding)
            ? bobChange : aliceChange
        #expect(finals.first?.canonicalEncoding == winner.canonicalEncoding)
    }

    /// The member whose change lost the tie makes it again on top of the winner: an add or
    /// a removal as a change of members, a rename as the name; nothing when the winner has
    /// it already or no longer lists us.
    @Test func aLostChangeIsMadeAgainOnTopOfTheWinner() throws {
        let rename = try #require(GroupConvergence.next(after: Self.v5, name: "ops-renamed"))
        let addErin = try #require(
            GroupConvergence.next(after: Self.v5, members: Self.v5.members + [K.erin]))
        let removeDave = try #require(
            GroupConvergence.next(
                after: Self.v5, members: Self.v5.members.filter { $0 != K.dave }))
        // The add lost to the rename: renamed, and Erin in.
        let added = try #require(
            GroupConvergence.reapply(
                addErin, basis: Self.v5.members, onto: rename, own: K.alice))
        #expect(added.version == 7 && added.name == "ops-renamed")
        #expect(Set(added.members) == Set(Self.v5.members + [K.erin]))
        // The rename lost to the add: Erin stays, the name is ours.
        let renamed = try #require(
            GroupConvergence.reapply(
                rename, basis: Self.v5.members, onto: addErin, own: K.bob))
        #expect(renamed.name == "ops-renamed" && renamed.hasMember(K.erin))
        // A removal lost to an add: both, Dave out and Erin in.
        let both = try #require(
            GroupConvergence.reapply(
                removeDave, basis: Self.v5.members, onto: addErin, own: K.alice))
        #expect(both.hasMember(K.erin) && !both.hasMember(K.dave))
        // The winner made the same change: nothing to do.
        #expect(
            GroupConvergence.reapply(
                removeDave, basis: Self.v5.members, onto: removeDave, own: K.alice) == nil)
        // The winner removed us: we may not change the group any more.
        let removeAlice = try #require(
            GroupConvergence.next(
                after: Self.v5, members: Self.v5.members.filter { $0 != K.alice }))
        #expect(
            GroupConvergence.reapply(
                addErin, basis: Self.v5.members, onto: removeAlice, own: K.alice) == nil)
    }

    @Test func canonicalEncodingIgnoresMemberOrder() {
        var shuffled = Self.v5
        shuffled.members.reverse()
        #expect(shuffled.canonicalEncoding == Self.v5.canonicalEncoding)
    }
}
