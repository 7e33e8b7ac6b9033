import Dispatch
import FoundationEssentials
import LanChatControl
import LanChatTestSupport
import Synchronization
import Testing

@testable import LanChatCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `lanchat watch` against the fake daemon: lines as events arrive, resuming after a lost
/// connection or an overflow from the last cursor printed, and the errors that end it.
@Suite(.timeLimit(.minutes(1))) struct WatchCommandTests {
    /// Runs `watch` until it has printed `count` lines, then interrupts it (as SIGINT does
    /// in the real process) and returns the lines and what it wrote on standard error.
    func watchLines(_ arguments: [String], server: CannedServer, count: Int) async -> (
        lines: [String], error: String, code: Int32
    ) {
        let output = StreamingOutput()
        let environment = TestEnvironment.make(socket: server.path, output: CapturedOutput())
        var withStreaming = environment
        withStreaming.output = output
        let command = Task {
            await CLIEnvironment.$current.withValue(withStreaming) {
                await LanChatCLI.run(arguments)
            }
        }
        var lines: [String] = []
        for await line in output.lines {
            lines.append(line)
            if lines.count == count { break }
        }
        command.cancel()
        return (lines, output.error, await command.value)
    }

    @Test func reconnectsAfterTheDaemonClosesAndResumesFromTheLastCursor() async throws {
        let plan = WatchPlan([
            .init(events: [CLIFixtures.event(1), CLIFixtures.event(2)], ending: .close),
            .init(events: [CLIFixtures.event(3), CLIFixtures.event(4)], ending: .hold),
        ])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let (lines, error, code) = await watchLines(
            ["watch", "--json"], server: server, count: 4)
        let cursors = try lines.map {
            try ControlJSON.decoder().decode(EventInfo.self, from: Data($0.utf8)).cursor
        }
        #expect(cursors == ["c1", "c2", "c3", "c4"])
        #expect(plan.sinces == [nil, "c2"])
        #expect(error.isEmpty)  // --json: no notes on standard error
        #expect(code == 0)
    }

    /// Found by QA: `watch '#ops'` ended ("no group matches") when the group was renamed
    /// while the daemon restarted. It watches again by the id the first answer named.
    @Test func aReconnectWatchesTheIdTheNameResolvedTo() async throws {
        let groupID = "0123456789abcdef0123456789abcdef"
        let plan = WatchPlan([
            .init(events: [CLIFixtures.event(1)], ending: .close, followed: groupID),
            .init(events: [CLIFixtures.event(2)], ending: .hold, followed: groupID),
        ])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let (lines, _, _) = await watchLines(["watch", "#ops", "--json"], server: server, count: 2)
        #expect(lines.count == 2)
        #expect(plan.peers == ["#ops", groupID])
    }

    /// A `message.status` event of an own group message carries the group's id only (its
    /// object, repeated per member's copy, made `watch --json` write 60 KB per event in a
    /// group of 256): the text line names the group by one `groups` call.
    @Test func aGroupCopysStatusLineNamesTheGroupItLooksUp() async throws {
        var copy = CLIFixtures.outgoing(5, "ship it", .delivered, at: "2026-11-21T12:05:00Z")
        copy.group = String(repeating: "0a", count: 16)
        let status = EventInfo(
            cursor: "c5", type: .messageStatus, at: CLIFixtures.at("2026-11-21T12:05:00Z"),
            message: copy, peer: CLIFixtures.bob)
        let plan = WatchPlan([.init(events: [status, status], ending: .hold)])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let (lines, _, _) = await watchLines(["watch"], server: server, count: 2)
        #expect(lines == Array(repeating: "12:05 ✓✓ delivered to Bob in #ops: ship it", count: 2))
        server.stop()
        var methods: [String] = []
        for await line in server.requests {
            methods.append((try? Request(line: line).method) ?? "?")
        }
        // Looked up once, not per event.
        #expect(methods.filter { $0 == Methods.Groups.name }.count == 1, "\(methods)")
    }

    @Test func withoutEventsItResumesFromTheDaemonsStartingCursor() async throws {
        let plan = WatchPlan([
            .init(ending: .close), .init(events: [CLIFixtures.event(1)], ending: .hold),
        ])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let (lines, error, _) = await watchLines(["watch"], server: server, count: 1)
        #expect(lines == ["12:01 Bob: event 1"])
        #expect(plan.sinces == [nil, "c0"])
        // One note on standard error while it reconnects, in text mode.
        #expect(error == "lanchat: lanchatd closed the stream; reconnecting…\n")
    }

    @Test func overflowResumesFromTheCursorTheDaemonNames() async throws {
        let plan = WatchPlan([
            .init(events: [CLIFixtures.event(1)], ending: .overflow(lastCursor: "c1")),
            .init(events: [CLIFixtures.event(2)], ending: .hold),
        ])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let (lines, _, code) = await watchLines(
            ["watch", "bob", "--since", "c0", "--json"], server: server, count: 2)
        #expect(lines.count == 2)
        #expect(plan.sinces == ["c0", "c1"])
        #expect(code == 0)
        server.stop()
        var peers: [String?] = []
        for await line in server.requests {
            peers.append((try? Request(line: line).params(WatchParams.self))??.peer)
        }
        #expect(peers == ["bob", "bob"])
    }

    @Test func jsonLinesAreTheEventObjects() async throws {
        let plan = WatchPlan([.init(events: [CLIFixtures.event(1)], ending: .hold)])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let (lines, _, _) = await watchLines(["watch", "--json"], server: server, count: 1)
        let line = try #require(lines.first)
        #expect(
            try ControlJSON.decoder().decode(EventInfo.self, from: Data(line.utf8))
                == CLIFixtures.event(1))
        #expect(!line.contains("\n") && line.hasPrefix("{"))
    }

    /// `watch --since c1` refused by the daemon with `cursorTooOld(message)`, oldest c500:
    /// the exit code, standard error and the cursors asked for.
    static func refusedSince(_ message: String) async throws -> (Int32, String, [String?]) {
        let plan = WatchPlan([.init(refusal: .cursorTooOld(message, oldest: "c500"))])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            ["watch", "--since", "c1"], socket: server.path, output: captured)
        return (code, captured.error, plan.sinces)
    }

    @Test func aCursorTooOldExits65NamingTheOldestKept() async throws {
        let (code, error, sinces) = try await Self.refusedSince("cursor c1 is no longer kept")
        #expect(code == 65)
        #expect(error.hasPrefix("lanchat: cursor c1 is no longer kept"))
        #expect(error.contains("c500"))
        #expect(sinces == ["c1"])  // not retried
    }

    /// The daemon's message names the oldest cursor: the CLI does not say it again.
    @Test func theOldestCursorIsNamedOnce() async throws {
        let (code, error, _) = try await Self.refusedSince(
            "the events after c1 are no longer kept; the oldest kept is c500")
        #expect(code == 65)
        #expect(error.components(separatedBy: "c500").count == 2, "\(error)")
    }

    /// Found by QA: `watch > /dev/full` went on dropping every event and ended with 0. It
    /// stops at the first line it cannot write, exits 74 and names the cursor to resume from.
    @Test func outputThatCannotBeWrittenEndsTheWatchWith74() async throws {
        let plan = WatchPlan([
            .init(
                events: [CLIFixtures.event(1), CLIFixtures.event(2), CLIFixtures.event(3)],
                ending: .hold)
        ])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let output = OutputFailingAfter(lines: 1)
        var environment = TestEnvironment.make(socket: server.path, output: CapturedOutput())
        environment.output = output
        let code = await CLIEnvironment.$current.withValue(environment) {
            await LanChatCLI.run(["watch", "--json"])
        }
        #expect(code == 74)
        #expect(output.written.count == 1)
        #expect(
            output.error.contains(
                "stopped watching; resume after the last event written "
                    + "with --since c1"), "\(output.error)")
    }

    @Test func anUnknownPeerExits67() async throws {
        let plan = WatchPlan([.init(refusal: .peerNotFound("nobody"))])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            ["watch", "nobody"], socket: server.path, output: captured)
        #expect(code == 67)
    }

    @Test func noDaemonAtTheStartExits69AtOnce() async {
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(["watch"], output: captured)
        #expect(code == 69)
        #expect(captured.error.contains("lanchatd is not running"))
    }

    /// The built binary, its standard output a pipe: the first event's line can be read
    /// while lanchat is still running (a stdio buffer would hold it until exit), and SIGTERM
    /// then ends it with exit 0.
    @Test func theBinaryWritesEachLineAtOnceAndExits0OnSIGTERM() async throws {
        let binary = try #require(LinkageTests.builtBinaryPath("lanchat"))
        let plan = WatchPlan([.init(events: [CLIFixtures.event(1)], ending: .hold)])
        let server = try FakeDaemon.start(watch: plan)
        defer { server.stop() }
        let child = try #require(
            RunningChild(arguments: [binary, "--socket", server.path, "watch", "--json"]))
        let line = await child.readLine()
        let decoded = try ControlJSON.decoder().decode(
            EventInfo.self, from: Data((line ?? "").utf8))
        #expect(decoded.cursor == "c1")
        kill(child.pid, SIGTERM)
        #expect(await child.exitStatus() == 0)
    }
}

/// Standard output that takes `lines` writes, then fails every later one (a disk that fills).
final class OutputFailingAfter: OutputSink {
    private let state = Mutex((written: [String](), error: "", failed: false))
    let lines: Int

    init(lines: Int) { self.lines = lines }

    func standardOutput(_ text: String) {
        state.withLock { state in
            if state.written.count < lines {
                state.written.append(text)
            } else {
                state.failed = true
            }
        }
    }

    func standardError(_ text: String) { state.withLock { $0.error += text } }
    var outputFailed: Bool { state.withLock { $0.failed } }
    var written: [String] { state.withLock { $0.written } }
    var error: String { state.withLock { $0.error } }
}
