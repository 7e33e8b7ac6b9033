import LanChatClient
import LanChatControl

/// Figure 4: messages queued while the peer was away, delivered after it comes back.
///
/// Bob stops cleanly; alice stores `count` messages for him (`send` with `texts` batches of
/// 1 000); bob starts again on the same data directory and port and dials alice. The figure
/// runs from the moment bob's daemon is ready (listener, store and control socket up: its
/// READY) to alice's `deliveredAt` stamp on the last message. Bob's store is checked to
/// hold each message exactly once.
struct QueuedDeliveryBench {
    let scale: BenchScale
    let directory: String

    func run() async throws -> [Figure] {
        try await InProcessPair.run(in: directory) { try await measure($0) }
    }

    private func measure(_ pair: InProcessPair) async throws -> [Figure] {
        let alice = pair.alice
        let bob = pair.bob
        let count = scale.queuedMessages
        await bob.stop()
        try await waitUntil("alice sees bob offline", timeout: .seconds(10)) {
            let peers = try await alice.client.who(WhoParams(all: true)).peers
            return peers.contains { $0.id == bob.id && $0.presence != .online }
        }
        let texts = Payload.texts(from: 0, count: count)
        var first = 0
        while first < count {
            let last = min(first + DaemonThroughputRun.batchSize, count)
            _ = try await alice.client.send(
                SendParams(peer: bob.id, texts: Array(texts[first..<last])))
            first = last
        }
        let queued = try await alice.client.status().queued
        guard queued == count else {
            throw BenchError.failed("alice has \(queued) queued, expected \(count)")
        }
        let startCalled = ContinuousClock.now
        try await bob.restart()
        let readyWall = wallClockMilliseconds()
        let startup = startCalled.duration(to: .now)
        let delivered = try await waitForLastDelivery(
            alice.client, to: bob.id, text: texts[count - 1], timeout: .seconds(120))
        let unread = try await bob.client.status().unread
        guard unread == count else {
            throw BenchError.failed("bob stored \(unread) messages, expected \(count)")
        }
        let elapsed = Double(delivered.millisecondsSince1970 - readyWall)
        return [
            Figure(
                key: "queued_delivered_ms", group: 4,
                title: "\(count.grouped) queued messages after the peer comes back: all delivered",
                value: elapsed, unit: "ms", target: .atMost(1_000),
                note: "from the receiver's readiness to the sender's `deliveredAt` of the last",
                details: ["messages": Double(count), "receiver_startup_ms": startup.milliseconds]
            ),
            Figure(
                key: "queued_receiver_startup_ms", group: 4,
                title: "↳ receiver's own start (store, key, listener, socket) before that",
                value: startup.milliseconds, unit: "ms", target: nil,
                note: "`Daemon.start` on the existing data directory"),
        ]
    }
}
