import Foundation
import LanChatClient
import LanChatControl
import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

/// `--notify-command` (PRODUCT.md §3) through whole daemons: the message reaches the command
/// in its environment only, never in the command line.
@Suite("Notify command", .serialized, .timeLimit(.minutes(2)))
struct NotifyCommandTests {
    /// Each run writes its environment's three values to a file of its own (named by the
    /// shell's pid), written to a temporary name and renamed, so a file seen is complete.
    static func recordingCommand(into directory: String) -> String {
        """
        f="\(directory)/n.$$"; printf '%s\\n%s\\n%s' "$LANCHAT_FROM" "$LANCHAT_FROM_ID" \
        "$LANCHAT_TEXT" > "$f.tmp" && mv "$f.tmp" "$f"
        """
    }

    static func records(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("n.") && !$0.hasSuffix(".tmp") }.compactMap {
            try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
        }
    }

    static func withNotifyingPair(
        _ body: (_ alice: TestNode, _ bob: TestNode, _ records: String) async throws -> Void
    ) async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let records = root.path + "/records"
        try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: false)
        let command = recordingCommand(into: records)
        let alice = try await TestNode.start("alice", in: root)
        let bob = try await TestNode.start("bob", peers: [alice], in: root) {
            $0.notifyCommand = command
        }
        do {
            try await eventually("connected") {
                guard await alice.isOnline(bob) else { return false }
                return await bob.isOnline(alice)
            }
            try await body(alice, bob, records)
        } catch {
            await bob.stop()
            await alice.stop()
            throw error
        }
        await bob.stop()
        await alice.stop()
    }

    @Test func eachIncomingMessageRunsTheCommandWithSenderAndTextInItsEnvironment() async throws {
        try await Self.withNotifyingPair { alice, bob, records in
            _ = try await alice.client.send(
                SendParams(peer: "bob", texts: ["first", "second"], wait: true, timeout: 20))
            try await eventually("two notifications") { Self.records(in: records).count == 2 }
            #expect(
                Set(Self.records(in: records))
                    == ["alice\n\(alice.id)\nfirst", "alice\n\(alice.id)\nsecond"])
            // Own messages notify nothing.
            _ = try await bob.client.send(
                SendParams(peer: "alice", text: "reply", wait: true, timeout: 20))
            _ = try await alice.client.send(
                SendParams(peer: "bob", text: "third", wait: true, timeout: 20))
            try await eventually("the third") { Self.records(in: records).count == 3 }
            #expect(!Self.records(in: records).contains { $0.hasSuffix("reply") })
        }
    }

    @Test func shellMetacharactersInTheTextAreNeverExecuted() async throws {
        try await Self.withNotifyingPair { alice, _, records in
            let traps = records + "/../trap"
            let text = """
                $(touch \(traps)1) `touch \(traps)2` "$(touch \(traps)3)" '; touch \(traps)4; '
                next line; touch \(traps)5 && echo $HOME \\ | & > \(traps)6 %s %n
                """
            _ = try await alice.client.send(
                SendParams(peer: "bob", text: text, wait: true, timeout: 20))
            try await eventually("notified") { Self.records(in: records).count == 1 }
            #expect(Self.records(in: records).first?.hasSuffix("\n" + text) == true)
            for index in 1...6 {
                #expect(!FileManager.default.fileExists(atPath: "\(traps)\(index)"))
            }
        }
    }

    /// A command that fails or hangs is logged and ended, and never holds delivery up.
    @Test func aCommandThatNeverEndsIsEndedAtTheTimeLimitAndDeliveryGoesOn() async throws {
        let clock = ManualClock()
        let bus = EventBus()
        let root = try TestRoot()
        defer { root.remove() }
        let marker = root.path + "/started"
        let notifier = MessageNotifier(
            events: bus, setting: NotifyCommandSetting("touch \(marker).$$; exec sleep 600"),
            wants: { _ in true }, displayName: { _ in "bob" }, clock: clock.daemonClock,
            logger: quietLogger)
        let running = Task { try await notifier.run() }
        while bus.subscriberCount == 0 { await Task.yield() }
        let key = try TypingTests.key(3)
        let message = IncomingRecord(
            message: WireMessage(stream: 1, seq: 1, id: .random(), sentAt: 0, text: "hello"),
            text: "hello")
        for _ in 0..<6 { bus.publish(.messagesReceived(peer: key, [message])) }
        // At most 4 at once: four start, the other two wait for one to end.
        try await eventually("four started") { Self.started(root.path).count == 4 }
        try await eventually("four timed") { clock.sleeperCount == 4 }
        clock.advance(by: .seconds(10))
        try await eventually("the other two started") { Self.started(root.path).count == 6 }
        running.cancel()
        _ = try? await running.value
    }

    /// A pending group request's messages stay out of notifications, as out of the inbox
    /// (found by QA: a contact's message in a group that was a request ran the command).
    @Test func aHeldGroupRequestsMessageRunsNoCommand() async throws {
        let clock = ManualClock()
        let bus = EventBus()
        let root = try TestRoot()
        defer { root.remove() }
        let marker = root.path + "/started"
        let held = try #require(GroupID(bytes: [UInt8](repeating: 0x0C, count: 16)))
        let notifier = MessageNotifier(
            events: bus, setting: NotifyCommandSetting("touch \(marker).$$; exec sleep 600"),
            wants: { _ in true }, group: { $0 == held ? ("ops", true) : nil },
            displayName: { _ in "alice" }, clock: clock.daemonClock, logger: quietLogger)
        let running = Task { try await notifier.run() }
        while bus.subscriberCount == 0 { await Task.yield() }
        let key = try TypingTests.key(3)
        var inGroup = WireMessage(stream: 1, seq: 1, id: .random(), sentAt: 0, text: "held")
        inGroup.group = held.bytes
        let direct = WireMessage(stream: 1, seq: 2, id: .random(), sentAt: 0, text: "direct")
        bus.publish(
            .messagesReceived(
                peer: key,
                [
                    IncomingRecord(message: inGroup, text: "held"),
                    IncomingRecord(message: direct, text: "direct"),
                ]))
        try await eventually("the direct message's run") { Self.started(root.path).count >= 1 }
        let counts = notifier.pendingCounts
        #expect(counts.running + counts.waiting == 1)
        running.cancel()
        _ = try? await running.value
    }

    /// A peer's pending 1:1 request silences its 1:1 messages, not its messages in a group
    /// the user is in (found by QA); a group's message names the group.
    @Test func aGroupsMessageNotifiesWithItsGroupWhateverTheSendersRequest() async throws {
        let clock = ManualClock()
        let bus = EventBus()
        let root = try TestRoot()
        defer { root.remove() }
        let written = root.path + "/run"
        let team = try #require(GroupID(bytes: [UInt8](repeating: 0x0D, count: 16)))
        let notifier = MessageNotifier(
            events: bus,
            setting: NotifyCommandSetting(
                #"printf '%s|%s|%s' "$LANCHAT_GROUP" "$LANCHAT_GROUP_ID" "$LANCHAT_TEXT" > "#
                    + "\(written).$$"),
            wants: { _ in true }, inRequest: { _ in true },
            group: { $0 == team ? ("team", false) : nil }, displayName: { _ in "carol" },
            clock: clock.daemonClock, logger: quietLogger)
        let running = Task { try await notifier.run() }
        while bus.subscriberCount == 0 { await Task.yield() }
        var inGroup = WireMessage(stream: 1, seq: 1, id: .random(), sentAt: 0, text: "to all")
        inGroup.group = team.bytes
        let direct = WireMessage(stream: 1, seq: 2, id: .random(), sentAt: 0, text: "a request")
        bus.publish(
            .messagesReceived(
                peer: try TypingTests.key(3),
                [
                    IncomingRecord(message: inGroup, text: "to all"),
                    IncomingRecord(message: direct, text: "a request"),
                ]))
        try await eventually("the group message's run") {
            Self.started(root.path, prefix: "run").count == 1 && Self.notifierIdle(notifier)
        }
        let files = Self.started(root.path, prefix: "run")
        let text = try String(contentsOfFile: root.path + "/" + files[0], encoding: .utf8)
        #expect(text == "team|\(team)|to all")
        running.cancel()
        _ = try? await running.value
    }

    /// A burst is not an hour of late notifications (found by QA): at most 32 wait beyond the
    /// 4 running, the oldest dropped; turning the command off drops what waits; a stop starts
    /// nothing more.
    @Test func aBurstIsBoundedOffMeansOffAndAStopStartsNothingMore() async throws {
        let clock = ManualClock()
        let bus = EventBus()
        let root = try TestRoot()
        defer { root.remove() }
        let marker = root.path + "/started"
        let setting = NotifyCommandSetting("touch \(marker).$$; exec sleep 600")
        let notifier = MessageNotifier(
            events: bus, setting: setting, wants: { _ in true }, displayName: { _ in "bob" },
            clock: clock.daemonClock, logger: quietLogger)
        let running = Task { try await notifier.run() }
        while bus.subscriberCount == 0 { await Task.yield() }
        let key = try TypingTests.key(3)
        let burst = (1...100).map { seq in
            IncomingRecord(
                message: WireMessage(
                    stream: 1, seq: UInt64(seq), id: .random(), sentAt: 0, text: "m\(seq)"),
                text: "m\(seq)")
        }
        bus.publish(.messagesReceived(peer: key, burst))
        try await eventually("four started") { Self.started(root.path).count == 4 }
        // The time limit ends the four (once their deadlines are set); four of the 32 that
        // wait start.
        try await eventually("four timed") { clock.sleeperCount == 4 }
        clock.advance(by: .seconds(10))
        try await eventually("four more") { Self.started(root.path).count == 8 }
        // Off: what waits is dropped, and nothing starts when the four end.
        setting.command = nil
        try await eventually("four timed") { clock.sleeperCount == 4 }
        clock.advance(by: .seconds(10))
        try await eventually("the four ended") { Self.notifierIdle(notifier) }
        #expect(Self.started(root.path).count == 8)
        // On again: a new message runs; a stop ends it and starts none of what waits.
        setting.command = "touch \(marker).$$; exec sleep 600"
        bus.publish(.messagesReceived(peer: key, Array(burst.prefix(10))))
        try await eventually("four of the ten") { Self.started(root.path).count == 12 }
        running.cancel()
        _ = try? await running.value
        #expect(Self.started(root.path).count == 12)
    }

    static func notifierIdle(_ notifier: MessageNotifier) -> Bool {
        notifier.pendingCounts == (running: 0, waiting: 0)
    }

    /// What systemd gave the daemon is not the command's to use.
    @Test func systemdsVariablesForTheDaemonAreNotPassedOn() {
        let environment = NotifyProcess.environment(
            inherited: [
                "PATH=/usr/bin", "NOTIFY_SOCKET=/run/x", "WATCHDOG_USEC=1000", "LISTEN_FDS=1",
                "LANCHAT_TEXT=old", "DISPLAY=:0", "LANCHAT_GROUP=inherited",
            ],
            variables: ["LANCHAT_TEXT": "new"])
        // Nor one of ours the daemon inherited: a 1:1 message's run has no LANCHAT_GROUP.
        #expect(Set(environment) == ["PATH=/usr/bin", "DISPLAY=:0", "LANCHAT_TEXT=new"])
    }

    static func started(_ directory: String, prefix: String = "started") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.hasPrefix(prefix + ".")
        }
    }
}
