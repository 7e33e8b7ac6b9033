import Foundation
import LanChatCore
import LanChatDiscovery
import Testing

/// The backend outlives avahi-daemon (PRODUCT.md §3): started while the daemon is absent, it
/// publishes as soon as the daemon appears, and again after the daemon is killed or stopped
/// and started again. Needs a host where the test may start and kill avahi-daemon; the
/// commands come from the environment (system scenario 17-avahi-backend sets them):
/// `LANCHAT_AVAHI_DAEMON_START`, `LANCHAT_AVAHI_DAEMON_KILL` (SIGKILL) and
/// `LANCHAT_AVAHI_DAEMON_STOP` (SIGTERM), each run with `/bin/sh -c`.
@Suite(
    .enabled(
        if: TestEnvironment.avahiTestsEnabled && DaemonCommands.fromEnvironment != nil,
        "SKIPPED: set LANCHAT_AVAHI_TESTS=1 and LANCHAT_AVAHI_DAEMON_START/_KILL/_STOP"))
struct AvahiRestartTests {
    struct CommandFailed: Error {
        var command: String
        var status: Int32
    }

    static func shell(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailed(command: command, status: process.terminationStatus)
        }
    }

    @Test func publishesWhenTheDaemonAppearsAndAgainAfterRestarts() async throws {
        let commands = try #require(DaemonCommands.fromEnvironment)
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let publisher = RunningDiscovery.start(name: "itest-restart-\(suffix)", port: 40_010)
        let observer = RunningDiscovery.start(
            name: "itest-watch-\(suffix)", port: 40_011, announce: false)
        let name = publisher.advertisement.instanceName

        // No daemon yet: the backend runs anyway and says it is waiting.
        let (_, first) = try await publisher.recorder.awaitEvent("a state") { $0.state != nil }
        #expect(first.state == .connecting)

        let rounds: [(label: String, disrupt: String?)] = [
            ("avahi-daemon started after the backend", nil),
            ("avahi-daemon killed (SIGKILL) and started again", commands.kill),
            ("avahi-daemon stopped (SIGTERM) and started again", commands.stop),
        ]
        for round in rounds {
            if let disrupt = round.disrupt {
                let publisherCursor = await publisher.recorder.events.count
                let observerCursor = await observer.recorder.events.count
                try Self.shell(disrupt)
                _ = try await publisher.recorder.awaitEvent(
                    "publisher connecting", from: publisherCursor
                ) { $0.state == .connecting }
                _ = try await observer.recorder.awaitEvent(
                    "observer loses the publisher", from: observerCursor
                ) { $0.lostInstance?.name == name }
            }
            let publisherCursor = await publisher.recorder.events.count
            let observerCursor = await observer.recorder.events.count
            let started = ContinuousClock.now
            try Self.shell(commands.start)
            let (_, seen) = try await observer.recorder.awaitEvent(
                "observer sees the publisher", from: observerCursor
            ) { $0.foundPeer?.instance.name == name }
            let elapsed = ContinuousClock.now - started
            print("[restart] \(round.label): published and seen after \(elapsed)")
            #expect(seen.foundPeer?.announcement?.key == publisher.key)
            _ = try await publisher.recorder.awaitEvent("publisher running", from: publisherCursor)
            {
                $0.state == .running
            }
        }
        try await publisher.stop()
        try await observer.stop()
    }
}

/// Shell commands that start, kill (SIGKILL) and stop (SIGTERM) the host's avahi-daemon.
struct DaemonCommands {
    var start: String
    var kill: String
    var stop: String

    static var fromEnvironment: DaemonCommands? {
        guard let start = TestEnvironment.value("LANCHAT_AVAHI_DAEMON_START"),
            let kill = TestEnvironment.value("LANCHAT_AVAHI_DAEMON_KILL"),
            let stop = TestEnvironment.value("LANCHAT_AVAHI_DAEMON_STOP")
        else { return nil }
        return DaemonCommands(start: start, kill: kill, stop: stop)
    }
}
