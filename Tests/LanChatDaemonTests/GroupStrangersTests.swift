import LanChatClient
import LanChatControl
import LanChatCore
import LanChatCrypto
import Testing

@testable import LanChatDaemon

/// A member's change names keys we never met (found by review: one 8 KiB GROUP from any key,
/// naming us and 254 made-up keys, pinned 254 peers that `who --all` then listed and queued
/// 255 copies of itself). Such keys are pinned when we send to the group, not before.
@Suite(.timeLimit(.minutes(2)))
struct GroupStrangersTests {
    @Test func keysAMembersGroupNamesArePinnedOnlyWhenWeSendToThem() async throws {
        try await withConnectedPair { alice, bob in
            let stranger = try IdentityKeyPair.generate().publicKey.id
            // alice knows it (added by id); bob never met it.
            _ = try await alice.client.add(AddParams(name: "dave", id: stranger))
            let created = try await alice.client.groupCreate(
                GroupCreateParams(name: "ops", peers: ["bob", stranger]))
            let group = created.group.id
            try await eventually("bob has the group") {
                (try? await bob.client.groups().groups.map(\.id)) == [group]
            }
            let bobKnows = try await bob.client.who(WhoParams(all: true)).peers.map(\.id)
            #expect(!bobKnows.contains(stranger), "\(bobKnows)")

            let sent = try await bob.client.send(SendParams(peer: group, text: "to all"))
            let recipients = try #require(sent.messages?.first?.recipients)
            #expect(Set(recipients.map(\.peer)) == [alice.id, stranger])
            #expect(recipients.first { $0.peer == stranger }?.status == .queued)
            let afterSending = try await bob.client.who(WhoParams(all: true)).peers.map(\.id)
            #expect(afterSending.contains(stranger))
        }
    }
}
