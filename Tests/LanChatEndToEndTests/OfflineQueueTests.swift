import Foundation
import Testing

extension EndToEnd {
    /// The README's promise on loopback: a message to a peer that is offline waits in the
    /// outbox and goes out, in order and exactly once, when the peer is back; `--wait`
    /// gives up with exit 75 and the message stays queued (PRODUCT.md §4).
    @Suite struct OfflineQueue {
        @Test func messagesWaitForThePeerAndArriveOnceInOrder() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)
                let bobPort = try bob.port
                #expect(await bob.stop() == .exited(0), "\(bob.log)")

                // Twenty lines while bob is away, one message each (`--lines`).
                let lines = (1...20).map { "queued line \($0)" }
                let batch = try await alice.lanchat(
                    ["send", "bob", "--lines"],
                    input: Data((lines.joined(separator: "\n") + "\n").utf8))
                #expect(batch.status == 0, "\(batch)")
                let ids = batch.output.split(separator: "\n").map(String.init)
                #expect(ids.count == 20 && ids.allSatisfy(\.isLowercaseUUID), "\(batch)")

                // --wait runs out: exit 75, the id printed, the message still queued.
                let waited = try await alice.lanchat(
                    ["send", "bob", "--wait", "--timeout", "1", "waited for"])
                #expect(waited.status == 75, "\(waited)")
                let waitedID = waited.output.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(waitedID.isLowercaseUUID, "--wait must print the id: \(waited)")
                let queued = try await alice.json(HistoryResult.self, ["history", "bob"])
                #expect(queued.messages.map(\.id) == ids + [waitedID])
                #expect(queued.messages.allSatisfy { $0.status == "queued" })
                let status = try await alice.json(StatusResult.self, ["status"])
                #expect(status.queued == 21)

                // bob is back (same identity, same port): everything arrives once, in order.
                let back = try await DaemonProcess.start(
                    "bob", in: sandbox, port: bobPort, peers: ["127.0.0.1:\(try alice.port)"],
                    dataDirectory: bob.dataDirectory)
                let allDelivered = try await pollUntil(timeout: .seconds(5)) {
                    try await alice.json(HistoryResult.self, ["history", "bob"]).messages
                        .allSatisfy { $0.status == "delivered" }
                }
                #expect(allDelivered, "\(alice.log)\n\(back.log)")
                let received = try await back.json(HistoryResult.self, ["history", "alice"])
                #expect(received.messages.map(\.id) == ids + [waitedID])
                #expect(received.messages.map(\.text) == lines + ["waited for"])
                let seqs = received.messages.map(\.seq)
                #expect(seqs == Array((seqs.first ?? 1)..<(seqs.first ?? 1) + 21))

                // Online, --wait returns 0 once delivered.
                let online = try await alice.lanchat(["send", "bob", "--wait", "now online"])
                #expect(online.status == 0, "\(online)")
                let onlineID = online.output.trimmingCharacters(in: .whitespacesAndNewlines)
                let last = try await alice.json(HistoryResult.self, ["history", "bob"])
                #expect(last.messages.last?.id == onlineID)
                #expect(last.messages.last?.status == "delivered")
            }
        }
    }
}
