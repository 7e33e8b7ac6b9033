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
    @Test func theInboxListsAGroupWithItsUnreadCountAndLastMessage() async throws {
        try await withConnectedPair { alice, bob in
            let group = try await alice.client.groupCreate(
                GroupCreateParams(name: "ops", peers: ["bob"])
            ).group
            _ = try await alice.client.send(SendParams(peer: "#ops", text: "deploy at 5"))
            _ = try await alice.client.send(SendParams(peer: "#ops", text: "build is green"))
            _ = try await alice.client.send(SendParams(peer: "bob", text: "just you"))
            try await eventually("bob has three unread") {
                try await bob.client.status().unread == 3
            }

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
            #expect(archived.conversation.archived)
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
            #expect(!unarchived.conversation.archived)
        }
    }
}
