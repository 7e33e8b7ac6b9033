import Dispatch
import LanChatClient
import LanChatControl
import Testing

/// `ControlClient.watch` against the fake daemon: the first answer, then each event as its
/// line arrives, and the ways a stream ends.
@Suite(.timeLimit(.minutes(1))) struct WatchClientTests {
    /// The second event is written only after the client has yielded the first: a client
    /// that waited for more data (or for the end) before yielding would hang here.
    @Test func eventsAreYieldedAsTheirLinesArrive() async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        let server = try CannedServer { connection in
            guard let line = connection.readLine() else { return }
            let request = Request(line: line)
            connection.write(
                Reply.result(request, WatchResult(cursor: "c0", oldestCursor: "c0")) + "\n")
            connection.write(WatchPlan.notification(CLIFixtures.event(1)) + "\n")
            // Wait until the test has seen event 1 (it then closes its end of `gate`).
            let released = DispatchSemaphoreBox()
            Task {
                for await _ in gate.stream {}
                released.signal()
            }
            released.wait()
            connection.write(WatchPlan.notification(CLIFixtures.event(2)) + "\n")
        }
        defer { server.stop() }
        var updates = ControlClient(socketPath: server.path).watch().makeAsyncIterator()
        #expect(try await updates.next() == .started(WatchResult(cursor: "c0", oldestCursor: "c0")))
        #expect(try await updates.next() == .event(CLIFixtures.event(1)))
        gate.continuation.finish()
        #expect(try await updates.next() == .event(CLIFixtures.event(2)))
        // The daemon closed the connection after answering: the stream ends without error.
        #expect(try await updates.next() == nil)
    }

    @Test func aRefusalIsThrownWithItsData() async throws {
        let plan = WatchPlan([.init(refusal: .cursorTooOld("cursor c1 is gone", oldest: "c5"))])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let stream = ControlClient(socketPath: server.path).watch(WatchParams(since: "c1"))
        await #expect {
            for try await _ in stream {}
        } throws: { error in
            let error = error as? ControlError
            return error?.exitCode == 65 && error?.data?.cursor == "c5"
        }
        #expect(plan.sinces == ["c1"])
    }

    @Test func overflowEndsTheStreamWithTheLastCursor() async throws {
        let plan = WatchPlan([
            .init(events: [CLIFixtures.event(1)], ending: .overflow(lastCursor: "c1"))
        ])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        var seen: [WatchUpdate] = []
        var ending: ControlError?
        do {
            for try await update in ControlClient(socketPath: server.path).watch() {
                seen.append(update)
            }
        } catch {
            ending = error as? ControlError
        }
        #expect(seen.count == 2)
        #expect(ending?.isWatchOverflow == true && ending?.data?.cursor == "c1")
    }

    @Test func noDaemonIsDaemonNotRunning() async throws {
        let stream = ControlClient(socketPath: "/nonexistent/lanchat-test.sock").watch()
        await #expect {
            for try await _ in stream {}
        } throws: { error in
            (error as? ControlError)?.exitCode == 69
        }
    }
}

/// A semaphore a server script (a dispatch thread) may block on.
final class DispatchSemaphoreBox: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func signal() { semaphore.signal() }
    func wait() { semaphore.wait() }
}
