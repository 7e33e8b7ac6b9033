import Foundation
import LanChatClient
import LanChatControl
import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

/// PROTOCOL.md §9 through whole daemons: delivery, the outbox, resume after restarts and lost
/// stores, REJECT and retry, `send --wait`.
@Suite("Delivery between in-process daemons", .serialized, .timeLimit(.minutes(2)))
struct DeliveryTests {
    @Test func aMessageIsStoredThenDeliveredAndShownOnBothSides() async throws {
        try await withConnectedPair { alice, bob in
            let sent = try await alice.client.send(SendParams(peer: "bob", text: "deploy done"))
            let message = try #require(sent.messages?.first)
            #expect(message.direction == .outgoing && message.seq == 1)
            #expect([.queued, .sent, .delivered].contains(message.status))
            try await eventually("delivered") {
                try await alice.history(with: bob).first?.status == .delivered
            }
            let received = try await bob.history(with: alice)
            #expect(received.map(\.id) == [message.id])
            #expect(received.first?.text == "deploy done" && received.first?.seq == 1)
            #expect(received.first?.direction == .incoming && received.first?.read == false)
            #expect(try await alice.history(with: bob).first?.deliveredAt != nil)
        }
    }

    /// `idsOnly` (what `lanchat send` asks): the ids of the stored messages, in order, and no
    /// message objects; with `wait` too, once they are delivered.
    @Test func anIDsOnlySendAnswersWithTheStoredIDsInOrder() async throws {
        try await withConnectedPair { alice, bob in
            let texts = (1...40).map { "line \($0)" }
            let queued = try await alice.client.send(
                SendParams(peer: bob.id, texts: texts, idsOnly: true))
            #expect(queued.messages == nil)
            let waited = try await alice.client.send(
                SendParams(peer: bob.id, text: "last", wait: true, idsOnly: true))
            #expect(waited.messages == nil)
            // `wait` answered after delivery, and deliveries go in order.
            let shown = try await alice.client.history(HistoryParams(peer: bob.id, limit: 50))
            #expect(shown.messages.map(\.id) == queued.ids + waited.ids)
            #expect(shown.messages.map(\.text) == texts + ["last"])
            #expect(shown.messages.allSatisfy { $0.status == .delivered })
            let received = try await bob.history(with: alice)
            #expect(received.map(\.id) == queued.ids + waited.ids)
        }
    }

    /// `delivered` reaches the store up to `PeerLink.markCoalescing` after the ACK; the answers
    /// that count or show messages must not wait for it.
    @Test func statusAndHistoryShowAnAcknowledgedMessageDeliveredAtOnce() async throws {
        try await withConnectedPair { alice, bob in
            for round in 1...5 {
                let sent = try await alice.client.send(
                    SendParams(peer: bob.id, texts: ["one \(round)", "two \(round)"], wait: true))
                #expect(try #require(sent.messages).allSatisfy { $0.status == .delivered })
                #expect(try await alice.client.status().queued == 0)
                let shown = try await alice.client.history(HistoryParams(peer: bob.id, limit: 2))
                #expect(shown.messages.allSatisfy { $0.status == .delivered })
            }
        }
    }

    /// Marks written together (`PeerLink.markCoalescing`) keep each message's own ACK time:
    /// the store ends with the `deliveredAt` each `send --wait` answered with, not the time
    /// of the last ACK of the round.
    @Test func eachMessageKeepsItsOwnAckTimeWhenTheMarksAreStored() async throws {
        try await withConnectedPair { alice, bob in
            var answered: [String: Timestamp] = [:]
            for index in 1...8 {
                let sent = try await alice.client.send(
                    SendParams(peer: bob.id, text: "n\(index)", wait: true))
                let message = try #require(sent.messages?.first)
                let delivered: Timestamp = try #require(message.deliveredAt)
                answered[message.id] = delivered
            }
            // A stopping link writes the marks it holds; after the restart only the store
            // answers.
            await alice.stop()
            try await alice.restart()
            let stored = try await alice.history(with: bob)
            #expect(stored.count == 8)
            for message in stored {
                #expect(message.deliveredAt == answered[message.id], "\(message.text)")
            }
        }
    }

    @Test func queuedMessagesGoOutInOrderExactlyOnceWhenThePeerIsBack() async throws {
        try await withConnectedPair { alice, bob in
            try await bob.stopAndWaitOffline(seenBy: alice)
            let texts = (1...300).map { "queued \($0)" }
            let sent = try #require(
                try await alice.client.send(SendParams(peer: bob.id, texts: texts)).messages)
            #expect(sent.allSatisfy { $0.status == .queued })
            #expect(try await alice.client.status().queued == 300)
            try await bob.restart()
            try await eventually("all delivered") { try await alice.client.status().queued == 0 }
            let received = try await bob.history(with: alice)
            #expect(received.map(\.id) == sent.map(\.id))
            #expect(received.map(\.text) == texts)
            #expect(received.map(\.seq) == Array(1...300))
            #expect(try await alice.history(with: bob).allSatisfy { $0.status == .delivered })
        }
    }

    @Test func sendWaitTimesOutWithTheIdsAndTheMessageStillGoesOutLater() async throws {
        try await withConnectedPair { alice, bob in
            try await bob.stopAndWaitOffline(seenBy: alice)
            do throws(ControlError) {
                _ = try await alice.client.send(
                    SendParams(peer: "bob", text: "are you there?", wait: true, timeout: 0.3))
                Issue.record("send --wait returned although bob is offline")
            } catch {
                #expect(error.isTimeout && error.exitCode == 75)
                #expect(error.data?.messageIDs?.count == 1)
            }
            #expect(try await alice.history(with: bob).map(\.status) == [.queued])
            try await bob.restart()
            let waited = try await alice.client.send(
                SendParams(peer: "bob", text: "now?", wait: true, timeout: 10))
            #expect(waited.messages?.map(\.status) == [.delivered])
            // At once, not eventually: an ACKed message is never shown queued, even while its
            // `delivered` mark is still on its way to the store.
            let shown = try await alice.history(with: bob)
            #expect(shown.map(\.status) == [.delivered, .delivered])
            #expect(shown.allSatisfy { $0.deliveredAt != nil })
            #expect(try await bob.history(with: alice).map(\.text) == ["are you there?", "now?"])
        }
    }

    @Test func aRejectedMessageFailsWithItsReasonAndDoesNotBlockTheStream() async throws {
        try await withConnectedPair { alice, bob in
            // A text over the limit can only come from a faulty or newer peer: store it directly.
            let store = alice.daemon.messenger.store
            let bobKey = try #require(PeerKey(id: bob.id))
            let oversized = try await store.enqueue(
                to: bobKey, texts: [String(repeating: "x", count: 70_000)], at: 1)
            await alice.daemon.registry.link(for: bobKey).committed(oversized)
            _ = try await alice.client.send(SendParams(peer: "bob", text: "after the big one"))
            try await eventually("the big one failed, the next delivered") {
                try await alice.history(with: bob).map(\.status) == [.failed, .delivered]
            }
            let failed = try #require(try await alice.history(with: bob).first)
            #expect(failed.failReason == "rejected by the peer: message too large")
            #expect(try await bob.history(with: alice).map(\.text) == ["after the big one"])

            let retried = try await alice.client.retry(RetryParams(target: failed.id)).messages
            #expect(retried.map(\.id) == [failed.id])
            #expect(retried.first?.seq == 3)
            try await eventually("rejected again") {
                try await alice.history(with: bob).first?.status == .failed
            }
            #expect(try await bob.history(with: alice).count == 1)

            // retry ID re-queues nothing and says why: no such message, or one that did not
            // fail (bob's "after the big one" arrived).
            let delivered = try #require(try await alice.history(with: bob).last)
            let unknown = "00000000-0000-4000-8000-000000000000"
            for (id, says) in [(unknown, "no message has"), (delivered.id, "did not fail")] {
                do throws(ControlError) {
                    _ = try await alice.client.retry(RetryParams(target: id))
                    Issue.record("retry of \(id) said nothing")
                } catch {
                    #expect(error.exitCode == 1 && error.message.contains(says), "\(error)")
                }
            }
        }
    }

    @Test func aReceiverThatLostItsStoreGetsWhatWasNotYetDelivered() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await alice.client.send(SendParams(peer: "bob", text: "before", wait: true))
            try await bob.stopAndWaitOffline(seenBy: alice)
            _ = try await alice.client.send(SendParams(peer: "bob", texts: ["one", "two"]))
            // Started over on purpose: the marker goes too, or the daemon refuses the empty
            // store as one that lost its history (lanchatd(8), store.marker).
            for file in [
                "lanchat.sqlite3", "lanchat.sqlite3-wal", "lanchat.sqlite3-shm", "store.marker",
            ] {
                try? FileManager.default.removeItem(atPath: bob.dataDirectory + "/" + file)
            }
            try await bob.restart()
            try await eventually("delivered after the store loss") {
                try await alice.client.status().queued == 0
            }
            // The new store adopted alice's stream where the resend started.
            let received = try await bob.history(with: alice)
            #expect(received.map(\.text) == ["one", "two"])
            #expect(received.map(\.seq) == [2, 3])
        }
    }

    @Test func aSenderThatLostItsStoreStartsAFreshStreamThePeerAdopts() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await bob.client.send(SendParams(peer: "alice", texts: ["a", "b"], wait: true))
            await bob.stop()
            // Started over on purpose: the marker goes too, or the daemon refuses the empty
            // store as one that lost its history (lanchatd(8), store.marker).
            for file in [
                "lanchat.sqlite3", "lanchat.sqlite3-wal", "lanchat.sqlite3-shm", "store.marker",
            ] {
                try? FileManager.default.removeItem(atPath: bob.dataDirectory + "/" + file)
            }
            try await bob.restart()
            try await eventually("online again") { await bob.isOnline(alice) }
            _ = try await bob.client.send(SendParams(peer: alice.id, text: "c", wait: true))
            let received = try await alice.history(with: bob)
            #expect(received.map(\.text) == ["a", "b", "c"])
            #expect(received.map(\.seq) == [1, 2, 1])
        }
    }

    @Test func presenceChangesReachTheLiveSession() async throws {
        try await withConnectedPair { alice, bob in
            let status = try await alice.client.presence(
                PresenceParams(status: .away, text: "lunch"))
            #expect(status.status == .away && status.statusText == "lunch")
            try await eventually("bob sees alice away") {
                let peer = try await bob.client.who().peers.first { $0.id == alice.id }
                return peer?.status == .away && peer?.statusText == "lunch"
            }
            await #expect(throws: ControlError.self) {
                try await alice.client.presence(
                    PresenceParams(status: .busy, text: String(repeating: "é", count: 65)))
            }
        }
    }

    /// A presence the daemon cannot keep for its next start (here a directory stands where
    /// the presence file goes; on a user's machine, a full disk) is refused with the reason,
    /// and the presence stays what it was.
    @Test func aPresenceThatCannotBeSavedIsRefusedAndUnchanged() async throws {
        try await withConnectedPair { alice, _ in
            let path = alice.dataDirectory + "/presence"
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: false)
            do throws(ControlError) {
                _ = try await alice.client.presence(PresenceParams(status: .away, text: "gone"))
                Issue.record("a presence that could not be saved was taken")
            } catch {
                #expect(error.exitCode == 74)
                #expect(error.message.contains(path), "\(error.message)")
                #expect(error.message.hasSuffix("the presence is unchanged"), "\(error.message)")
            }
            let status = try await alice.client.status()
            #expect(status.status == .available && status.statusText == "")

            try FileManager.default.removeItem(atPath: path)
            _ = try await alice.client.presence(PresenceParams(status: .away, text: "back"))
            #expect(try await alice.client.status().status == .away)
        }
    }

    /// A peer's clock is its own: `sent_at` = Int64.min (found by the fuzzer) is stored as the
    /// time of receipt, and both sides' history still answers.
    @Test func anAbsurdSendTimeNeitherCrashesNorReachesHistory() async throws {
        try await withConnectedPair { alice, bob in
            let bobKey = try #require(PeerKey(id: bob.id))
            let odd = try await alice.daemon.messenger.store.enqueue(
                to: bobKey, texts: ["from the dawn of time"], at: .min)
            await alice.daemon.registry.link(for: bobKey).committed(odd)
            try await eventually("delivered") {
                try await bob.history(with: alice).count == 1
            }
            let received = try #require(try await bob.history(with: alice).first)
            #expect(received.createdAt == received.receivedAt)
            #expect(
                try await alice.history(with: bob).first?.createdAt.rfc3339
                    == "0000-01-01T00:00:00.000Z")
        }
    }
}
