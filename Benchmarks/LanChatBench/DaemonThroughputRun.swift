import LanChatClient
import LanChatControl

/// One run of figure 2: `count` 100-byte messages from alice to bob through the control
/// API, sent as `--lines` sends them (sequential `send` calls of `texts` batches of 1 000,
/// no waiting, answered with the ids only), durable on both sides (each side commits with
/// `synchronous=FULL`).
///
/// The rate is counted from the first `send` call to the daemon's `deliveredAt` stamp of
/// the last message (alice recorded bob's ACK for it), so the notice of the end, which is a
/// poll, adds nothing to it. Bob's store is checked to hold exactly `count` new messages.
struct DaemonThroughputRun {
    let texts: [String]
    let directory: String

    static let batchSize = 1_000

    struct Outcome {
        var messagesPerSecond: Double
        /// How long the `send` calls took (all messages stored on alice's side).
        var storedSeconds: Double
        var deliveredSeconds: Double
    }

    func run() async throws -> Outcome {
        try await InProcessPair.run(in: directory) { try await measure($0) }
    }

    private func measure(_ pair: InProcessPair) async throws -> Outcome {
        let client = pair.alice.client
        let peer = pair.bob.id
        let unreadBefore = try await pair.bob.client.status().unread
        let startWall = wallClockMilliseconds()
        let start = ContinuousClock.now
        var first = texts.startIndex
        while first < texts.endIndex {
            let last = min(first + Self.batchSize, texts.endIndex)
            let batch = Array(texts[first..<last])
            let sent = try await client.send(SendParams(peer: peer, texts: batch, idsOnly: true))
            guard sent.ids.count == batch.count else {
                throw BenchError.failed("\(sent.ids.count) ids for a batch of \(batch.count)")
            }
            first = last
        }
        let stored = start.duration(to: .now)
        let delivered = try await waitForLastDelivery(
            client, to: peer, text: texts[texts.count - 1], timeout: .seconds(300))
        let unread = try await pair.bob.client.status().unread - unreadBefore
        guard unread == texts.count else {
            throw BenchError.failed("bob stored \(unread) messages, expected \(texts.count)")
        }
        let elapsed = Double(delivered.millisecondsSince1970 - startWall) / 1_000
        return Outcome(
            messagesPerSecond: Double(texts.count) / elapsed, storedSeconds: stored.seconds,
            deliveredSeconds: elapsed)
    }
}
