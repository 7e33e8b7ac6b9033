import Foundation
import Testing

extension EndToEnd {
    /// Scenario 1: two daemons pointed at each other with `--peer` exchange a message, as in
    /// the README.
    @Suite struct MessageExchange {
        @Test func sendIsDeliveredWithinOneSecondAndBothSidesAgree() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)
                let text = "deploy done \(UUID().uuidString.prefix(8))"

                // `send` returns after the local commit and prints the id.
                let clock = ContinuousClock()
                let sendStarted = clock.now
                let sent = try await alice.lanchat(["send", "bob", text])
                let sendReturned = clock.now
                #expect(sent.status == 0, "\(sent)")
                let id = sent.output.trimmingCharacters(in: .newlines)
                #expect(id.isLowercaseUUID, "send should print the message id: \(sent)")

                // It is stored when send returns: the next history call lists it.
                let stored = try await alice.json(HistoryResult.self, ["history", "bob"])
                #expect(stored.messages.map(\.id) == [id], "send returns after the local commit")

                // Within 1 s of send returning, the sender's history shows it delivered.
                let delivered = try await alice.awaitMessage(
                    id, to: "bob", status: "delivered",
                    timeout: sendReturned + .seconds(1) - clock.now)
                let seenDelivered = clock.now
                let message = try #require(
                    delivered, "not delivered within 1 s\n\(alice.log)\n\(bob.log)")
                #expect(seenDelivered - sendReturned <= .seconds(1))
                let daemonLatency = zip(
                    APITimestamp.parse(message.createdAt),
                    message.deliveredAt.flatMap(APITimestamp.parse)
                ).map { String(format: "%.0f ms", $1.timeIntervalSince($0) * 1000) }
                let sendTime = milliseconds(sendReturned - sendStarted)
                let seenAfter = milliseconds(seenDelivered - sendReturned)
                print(
                    "[e2e] send→delivered: `lanchat send` ran \(sendTime); `lanchat history` "
                        + "showed `delivered` \(seenAfter) after send returned (one history "
                        + "run is the resolution); the daemon's createdAt→deliveredAt: "
                        + "\(daemonLatency ?? "n/a")")
                #expect(message.direction == "out")
                #expect(message.text == text)
                #expect(message.peer == bob.id)

                // The receiver shows the same id, seq and text.
                let received = try #require(
                    try await bob.awaitReceived(id, from: "alice", timeout: .seconds(1)),
                    "bob's history has no message \(id)\n\(bob.log)")
                #expect(received.seq == message.seq)
                #expect(received.text == text)
                #expect(received.peer == alice.id)
                #expect(received.status == nil)
                #expect(received.receivedAt != nil)

                // Each lists the other online, by its key.
                let aliceSees = try await alice.json(WhoResult.self, ["who"]).peers
                let bobSees = try await bob.json(WhoResult.self, ["who"]).peers
                #expect(aliceSees.map(\.id) == [bob.id])
                #expect(aliceSees.first?.presence == "online")
                #expect(aliceSees.first?.name == "bob")
                #expect(aliceSees.first?.keyTag == bob.keyTag)
                #expect(bobSees.map(\.id) == [alice.id])
                #expect(bobSees.first?.presence == "online")
                #expect(bobSees.first?.name == "alice")
            }
        }

        @Test func repliesFlowBackAndSequenceNumbersCount() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)

                let first = try await alice.sendDelivered("one", to: "bob")
                let second = try await alice.sendDelivered("two", to: "bob")
                let reply = try await bob.sendDelivered("got both", to: "alice")
                #expect(second.seq == first.seq + 1)
                let aliceHistory = try await alice.json(HistoryResult.self, ["history", "bob"])
                #expect(aliceHistory.messages.map(\.text) == ["one", "two", "got both"])
                #expect(aliceHistory.messages.map(\.direction) == ["out", "out", "in"])
                #expect(aliceHistory.messages.last?.id == reply.id)
                let bobHistory = try await bob.json(HistoryResult.self, ["history", "alice"])
                #expect(bobHistory.messages.map(\.id) == aliceHistory.messages.map(\.id))
                #expect(!aliceHistory.hasNewer)

                // Paging forwards: each page says whether another follows, and the text
                // output says how to get it.
                let ids = aliceHistory.messages.map(\.id)
                let page = try await alice.json(
                    HistoryResult.self, ["history", "bob", "--after", ids[0], "--limit", "1"])
                #expect(page.messages.map(\.text) == ["two"])
                #expect(page.hasNewer && page.hasOlder)
                let last = try await alice.json(
                    HistoryResult.self, ["history", "bob", "--after", ids[1], "--limit", "1"])
                #expect(last.messages.map(\.text) == ["got both"])
                #expect(!last.hasNewer)
                let shown = try await alice.lanchat(
                    ["history", "bob", "--before", ids[2], "--limit", "1"])
                #expect(shown.status == 0, "\(shown)")
                let hint = shown.output.split(separator: "\n").last ?? ""
                #expect(hint.hasPrefix("(newer messages: lanchat history "), "\(shown)")
                #expect(hint.hasSuffix(" --after \(ids[1]))"), "\(shown)")
            }
        }
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
