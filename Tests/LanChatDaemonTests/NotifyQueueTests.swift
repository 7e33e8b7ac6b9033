import Testing

@testable import LanChatDaemon

/// The notify command's queue: at most `maxRunning` run, at most `limit` wait beyond them;
/// a burst's oldest are dropped, and counted once the burst is over.
@Suite struct NotifyQueueTests {
    static func items(_ count: Int, from first: Int = 0) -> [NotifyQueue.Item] {
        (first..<first + count).map { NotifyQueue.Item(variables: ["N": String($0)]) }
    }

    /// Found by QA: one message running, then a burst of 44 with three run slots free ran
    /// 32 of the burst, not 35 (4 running and 32 waiting, as lanchatd(8) says).
    @Test func aBurstFillsTheFreeRunSlotsAndLimitWaiting() throws {
        let queue = NotifyQueue(limit: 32, maxRunning: 4)
        queue.append(Self.items(1))
        #expect(queue.startNext()?.variables["N"] == "0")
        queue.append(Self.items(44, from: 1))
        var started: [String] = []
        while let item = queue.startNext() { started.append(item.variables["N"] ?? "") }
        // The newest are kept: the three that start now are 10, 11 and 12.
        #expect(started == ["10", "11", "12"])
        #expect(queue.runningCount == 4 && queue.waitingCount == 32)
        #expect(queue.takeDroppedAfterBurst() == nil)  // still waiting: the burst goes on
        for _ in 0..<36 {
            queue.finished()
            _ = queue.startNext()
        }
        #expect(queue.waitingCount == 0)
        #expect(queue.takeDroppedAfterBurst() == 9)
        #expect(queue.takeDroppedAfterBurst() == nil)
    }

    @Test func withEveryRunSlotTakenOnlyTheLimitWaits() {
        let queue = NotifyQueue(limit: 2, maxRunning: 1)
        queue.append(Self.items(1))
        _ = queue.startNext()
        queue.append(Self.items(5, from: 1))
        #expect(queue.waitingCount == 2)
        #expect(queue.startNext() == nil)
        queue.finished()
        #expect(queue.startNext()?.variables["N"] == "4")
    }
}
