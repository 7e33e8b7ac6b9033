import Foundation
import LanChatClient
import LanChatControl
import LanChatCore
import Testing

@testable import LanChatDaemon

/// Issue 13's policy for a blocked member (PRODUCT.md §4 `block`: its sessions are refused,
/// nothing from it is stored), through whole in-process daemons: alice blocks carol, who stays
/// a member of alice's group. carol's group messages never reach alice's store, alice's
/// messages to the group get no copy sent to carol (hers fails at once, with the reason), and
/// alice and bob go on talking in the group, as do bob and carol. Unblocked, `retry` sends it.
@Suite("A blocked group member", .serialized, .timeLimit(.minutes(3)))
struct GroupBlockedMemberTests {
    @Test func aBlockedMemberNeitherReachesUsNorGetsOurGroupMessages() async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let alice = try await TestNode.start("alice", in: root)
        let bob = try await TestNode.start("bob", peers: [alice], in: root)
        let carol = try await TestNode.start("carol", peers: [alice, bob], in: root)
        let nodes = [alice, bob, carol]
        do {
            try await eventually("everyone online with everyone", timeout: .seconds(20)) {
                let online = [
                    await alice.isOnline(bob), await alice.isOnline(carol),
                    await bob.isOnline(carol),
                ]
                return online.allSatisfy { $0 }
            }
            let group = try await alice.createGroup(
                "ops", members: ["bob", "carol"], seenBy: [bob, carol])

            _ = try await alice.client.block(PeerParams(peer: "carol"))
            try await eventually("carol sees alice offline") { await !carol.isOnline(alice) }

            // carol writes to the group: bob has it, alice stores nothing of it.
            _ = try await carol.client.send(SendParams(peer: "#ops", text: "from carol"))
            try await eventually("bob has carol's message") {
                try await Self.texts(bob, in: group).contains("from carol")
            }
            // alice writes to the group: bob has it; carol's copy failed without being sent.
            let sent = try await alice.client.send(SendParams(peer: "#ops", text: "from alice"))
            let own = try #require(sent.messages?.first)
            let carolsCopy = try #require(own.recipients?.first { $0.peer == carol.id })
            #expect(carolsCopy.status == .failed)
            try await eventually("bob has alice's message") {
                try await Self.texts(bob, in: group).contains("from alice")
            }
            // bob writes: both alice and carol have it, so the group still works for all.
            _ = try await bob.client.send(SendParams(peer: "#ops", text: "from bob"))
            for node in [alice, carol] {
                try await eventually("\(node.name) has bob's message") {
                    try await Self.texts(node, in: group).contains("from bob")
                }
            }

            #expect(try await Self.texts(alice, in: group) == ["from alice", "from bob"])
            let mine = try #require(
                try await alice.client.history(HistoryParams(peer: "#ops")).messages.first)
            let failed = try #require(mine.recipients?.first { $0.peer == carol.id })
            #expect(failed.status == .failed)
            #expect(mine.recipients?.first { $0.peer == bob.id }?.status == .delivered)
            #expect(try await alice.client.status().unread == 1)  // bob's, not carol's
            #expect(try await alice.client.contacts().requests.isEmpty)
            // carol never got alice's message (only bob's and her own), and her copy to alice
            // waits, as alice refuses her sessions.
            #expect(try await Self.texts(carol, in: group) == ["from carol", "from bob"])
            let carols = try await carol.client.history(HistoryParams(peer: "#ops")).messages
            let toAlice = carols.first { $0.text == "from carol" }?.recipients?.first {
                $0.peer == alice.id
            }
            #expect(toAlice?.status == .queued)
            #expect(await !alice.isOnline(carol))

            // retry leaves the blocked member's copy failed, and says why, whether asked for
            // everything (QA: it said "no failed messages") or for her.
            do throws(ControlError) {
                _ = try await alice.client.retry(RetryParams())
                Issue.record("retry of everything hid the blocked member's failed copy")
            } catch {
                #expect(error.exitCode == 1, "\(error)")
                #expect(error.message.contains("to blocked peers (carol"), "\(error)")
            }
            do throws(ControlError) {
                _ = try await alice.client.retry(RetryParams(target: "carol"))
                Issue.record("a retry for a blocked peer was taken")
            } catch {
                #expect(error.exitCode == 1 && error.message.contains("is blocked"))
            }
            let after = try await alice.client.history(HistoryParams(peer: "#ops")).messages
            #expect(
                after.first?.recipients?.first { $0.peer == carol.id }?.status == .failed)

            // Unblocked, the copy goes out on retry. alice never sent carol a message before
            // it, so it starts alice's stream to her (QA found it left failed for good).
            _ = try await alice.client.unblock(PeerParams(peer: "carol"))
            let retried = try await alice.client.retry(RetryParams())
            #expect(retried.messages.map(\.text) == ["from alice"])
            // Shown as history shows it: the group's message with every member's copy, not a
            // direct message to carol (QA: `retry --json` had no group, sender or recipients).
            let again = try #require(retried.messages.first)
            #expect(again.group == group.id)
            #expect(again.sender == alice.id && again.peer == alice.id)
            #expect(Set(again.recipients?.map(\.peer) ?? []) == [bob.id, carol.id])
            #expect(again.recipients?.first { $0.peer == carol.id }?.status == .queued)
            try await eventually("carol has alice's message") {
                try await Self.texts(carol, in: group).contains("from alice")
            }
        } catch {
            for node in nodes { await node.stop() }
            throw error
        }
        for node in nodes { await node.stop() }
    }

    static func texts(_ node: TestNode, in group: GroupInfo) async throws -> [String] {
        try await node.client.history(HistoryParams(peer: group.id)).messages.map(\.text)
    }
}
