import FoundationEssentials
import LanChatControl
import Testing

@testable import LanChatCLI

/// Whole commands in-process: arguments → call to a canned daemon on a real socket →
/// output and exit code.
@Suite(.timeLimit(.minutes(1))) struct CommandRunTests {
    struct Outcome {
        var code: Int32
        var output: String
        var error: String
    }

    func run(
        _ arguments: [String], server: CannedServer?, input: InputPipe? = nil
    ) async -> Outcome {
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            arguments, socket: server?.path, standardInput: input?.readEnd ?? -1, output: captured)
        return Outcome(code: code, output: captured.output, error: captured.error)
    }

    /// Every `send` request the daemon received, in order.
    func sentParams(_ server: CannedServer) async -> [SendParams] {
        server.stop()
        var params: [SendParams] = []
        for await line in server.requests {
            if let sent = try? Request(line: line).params(SendParams.self) { params.append(sent) }
        }
        return params
    }

    @Test func sendJoinsWordsAndPrintsTheID() async throws {
        let server = try FakeDaemon.start()
        let outcome = await run(["send", "bob", "build", "is", "green"], server: server)
        #expect(outcome.code == 0)
        #expect(outcome.output == "00000000-0000-4000-8000-000000000001\n")
        #expect(
            await sentParams(server) == [
                SendParams(peer: "bob", text: "build is green", idsOnly: true)
            ])
    }

    /// Text like `-hi` or `-> thanks` reads as bundled short flags with `-h` among them:
    /// never help and exit 0 with nothing sent, but a usage error saying to write `--`; and
    /// with `--` it is sent. Asking for help still works.
    @Test func textThatLooksLikeBundledHelpIsAUsageErrorNotHelp() async throws {
        for words in [["-hi"], ["-> see above, thanks"]] {
            let server = try FakeDaemon.start()
            let outcome = await run(["send", "bob"] + words, server: server)
            #expect(outcome.code == 64, "\(words)")
            #expect(outcome.output.isEmpty)
            #expect(outcome.error.contains("put '--' before"), "\(outcome.error)")
            #expect(await sentParams(server).isEmpty)
        }
        let server = try FakeDaemon.start()
        #expect(await run(["send", "bob", "--", "-hi"], server: server).code == 0)
        #expect(await sentParams(server).map(\.text) == ["-hi"])
        // `help help` and `help --help` are help too (found by QA: "no command 'help'").
        for asked in [
            ["send", "-h"], ["send", "--help"], ["help", "send"], ["help", "help"],
            ["help", "--help"], ["help", "-h"],
        ] {
            let outcome = await run(asked, server: nil)
            #expect(outcome.code == 0 && outcome.output.contains("USAGE"), "\(asked)")
        }
        // Help about a command there is not: a usage error, not the general help and 0.
        let unknown = await run(["help", "nosuch"], server: nil)
        #expect(unknown.code == 64 && unknown.error.contains("no command 'nosuch'"))
        // `group` without its command, and `chat --json` (chat has no JSON): usage errors.
        let group = await run(["group"], server: nil)
        #expect(group.code == 64 && group.error.contains("'group' needs a command"))
        #expect(await run(["group", "--help"], server: nil).code == 0)
        // No command at all (a script's empty variable): a usage error with the help, on
        // standard error; asking for the help is still 0 (QA: `lanchat` alone exited 0).
        for missing in [[], ["--json"], ["--socket", "/x"]] {
            let outcome = await run(missing, server: nil)
            #expect(outcome.code == 64, "\(missing)")
            #expect(outcome.error.hasPrefix("lanchat: no command given"), "\(missing)")
            #expect(outcome.error.contains("SUBCOMMANDS") && outcome.output.isEmpty, "\(missing)")
        }
        for asked in [["--help"], ["help"], ["--version"]] {
            #expect(await run(asked, server: nil).code == 0, "\(asked)")
        }
        let chat = await run(["--json", "chat", "bob"], server: nil)
        #expect(chat.code == 64 && chat.error.contains("no JSON output"), "\(chat.error)")
    }

    @Test func sendJSONPrintsTheResultObjectExactly() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["--json", "send", "bob", "hi"], server: server)
        let expected = SendResult(messages: [
            CLIFixtures.outgoing(1, "hi", .queued, at: "2026-11-21T11:59:00Z")
        ])
        let pretty = try ControlJSON.prettyEncoder().encode(expected)
        #expect(outcome.output == String(decoding: pretty, as: UTF8.self) + "\n")
    }

    @Test func backupSendsARelativePathMadeAbsoluteAgainstTheWorkingDirectory() async throws {
        let server = try FakeDaemon.start()
        let outcome = await run(["backup", "lanchat-copy.db"], server: server)
        let expected = FileManager.default.currentDirectoryPath + "/lanchat-copy.db"
        #expect(outcome.code == 0, "\(outcome.error)")
        #expect(outcome.output == "Backed up 2 messages (4096 bytes) to \(expected)\n")
        server.stop()
        var paths: [String] = []
        for await line in server.requests {
            if let params = try? Request(line: line).params(BackupParams.self) {
                paths.append(params.path)
            }
        }
        #expect(paths == [expected])
    }

    @Test func quietSendPrintsNothing() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["send", "-q", "bob", "hi"], server: server)
        #expect(outcome.code == 0 && outcome.output.isEmpty && outcome.error.isEmpty)
    }

    @Test func ambiguousPeerExits67WithCandidates() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["send", "bo", "hi"], server: server)
        #expect(outcome.code == 67)
        #expect(outcome.output.isEmpty)
        #expect(outcome.error.hasPrefix("lanchat: 'bo' matches 2 peers\n"))
        #expect(outcome.error.contains("BOBB-2345") && outcome.error.contains(CLIFixtures.carolID))
    }

    @Test func standardInputIsOneMessage() async throws {
        let server = try FakeDaemon.start()
        let input = InputPipe(closedWith: Array("first line\nsecond line\n".utf8))
        let outcome = await run(["send", "bob"], server: server, input: input)
        #expect(outcome.code == 0)
        #expect(
            await sentParams(server) == [
                SendParams(peer: "bob", text: "first line\nsecond line", idsOnly: true)
            ])
    }

    @Test(arguments: [Array("  \n\n".utf8), [0x68, 0xC3], Array(repeating: 0x61, count: 70_000)])
    func badStandardInputExits65AndSendsNothing(bytes: [UInt8]) async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let input = InputPipe()
        let writer = Task.detached {
            input.write(bytes)  // may exceed the pipe buffer: written while lanchat reads
            input.closeWriteEnd()
        }
        let outcome = await run(["send", "bob", "-"], server: server, input: input)
        await writer.value
        #expect(outcome.code == 65)
        #expect(outcome.error.hasPrefix("lanchat: "))
        #expect(server.connectionCount == 0)
    }

    @Test func blankWordsExit65WithoutConnecting() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["send", "bob", " ", " "], server: server)
        #expect(outcome.code == 65)
        #expect(
            outcome.error == "lanchat: the message is only white space or invisible characters\n")
        #expect(server.connectionCount == 0)
    }

    @Test func waitTimeoutExits75AndStillPrintsTheIDs() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["send", "bob", "hi", "--wait", "--timeout", "1"], server: server)
        #expect(outcome.code == 75)
        #expect(outcome.output == "00000000-0000-4000-8000-000000000001\n")
        #expect(outcome.error == "lanchat: not delivered within 1 s; still queued\n")
    }

    /// `groups` names members as `who` does (name and alias) with their availability.
    @Test func groupsShowMembersAsWhoDoes() {
        var stranger = CLIFixtures.carol
        stranger.name = ""
        stranger.keyTag = "STRA-NGER"
        let group = GroupInfo(
            id: String(repeating: "a", count: 32), name: "ops",
            members: [CLIFixtures.bob, CLIFixtures.carol, stranger], version: 1)
        #expect(
            GroupsView.render([group])
                == "#ops  \(group.id)  (3 members)\n"
                + "  online, away  bob@laptop (Bob)  BOBB-2345\n"
                + "  offline  carol@desk  CARO-L234\n" + "  offline  STRA-NGER\n")
    }

    /// A group we left (or were removed from) says so on its line.
    @Test func groupsMarkAGroupNoLongerJoined() {
        var group = GroupInfo(
            id: String(repeating: "b", count: 32), name: "old", members: [CLIFixtures.bob],
            version: 3)
        group.left = true
        #expect(
            GroupsView.render([group])
                == "#old  \(group.id)  (1 member)  (you are no longer a member)\n"
                + "  online, away  bob@laptop (Bob)  BOBB-2345\n")
    }

    /// With `--json` too a script learns the ids, as a send answer that has only them.
    @Test func waitTimeoutWithJSONPrintsTheIDsAsJSON() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(
            ["--json", "send", "bob", "hi", "--wait", "--timeout", "1"], server: server)
        #expect(outcome.code == 75)
        let printed = try JSONDecoder().decode(SendResult.self, from: Data(outcome.output.utf8))
        #expect(printed.ids == ["00000000-0000-4000-8000-000000000001"])
        #expect(outcome.error == "lanchat: not delivered within 1 s; still queued\n")
    }

    /// Each line is sent while input is still open: the second line is written only after
    /// the daemon has received the first.
    @Test func linesAreStreamedAsTheyArrive() async throws {
        let server = try FakeDaemon.start()
        let input = InputPipe()
        var requests = server.requests.makeAsyncIterator()
        async let outcome = run(["send", "bob", "--lines"], server: server, input: input)
        // Before any line: the daemon is asked whether it is there and knows bob.
        let check = try #require(await requests.next())
        #expect(Request(line: check).method == "history")
        input.write("one\n")
        let first = try #require(await requests.next())
        #expect(try Request(line: first).params(SendParams.self)?.texts == ["one"])
        input.write("two\n\nthree")
        input.closeWriteEnd()
        let finished = await outcome
        #expect(finished.code == 0)
        #expect(
            finished.output
                == "00000000-0000-4000-8000-000000000001\n00000000-0000-4000-8000-000000000002\n"
                + "00000000-0000-4000-8000-000000000003\n")
        server.stop()
        var texts: [String] = []
        while let line = await requests.next() {
            texts += (try? Request(line: line).params(SendParams.self))??.texts ?? []
        }
        #expect(texts == ["two", "three"])
    }

    /// `journalctl -f | lanchat send ops --lines --wait`: a wait that runs out is told and
    /// the stream goes on (QA: the first one ended it, the later lines never read); exit 75
    /// once input ends. With --json, the ids of each are one compact line, as results are.
    @Test func linesWithAWaitThatRunsOutGoOnAndExit75() async throws {
        for json in [false, true] {
            let server = try FakeDaemon.start()
            let input = InputPipe()
            var requests = server.requests.makeAsyncIterator()
            async let outcome = run(
                ["send", "bob", "--lines", "--wait", "--timeout", "1"] + (json ? ["--json"] : []),
                server: server, input: input)
            _ = try #require(await requests.next())  // history: the daemon and bob are there
            input.write("one\n")
            let first = try #require(await requests.next())
            #expect(try Request(line: first).params(SendParams.self)?.texts == ["one"])
            input.write("two\n")
            input.closeWriteEnd()
            let finished = await outcome
            server.stop()
            #expect(finished.code == 75, "\(finished.error)")
            let ids = [
                "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002",
            ]
            if json {
                let printed = try finished.output.split(separator: "\n").map {
                    try ControlJSON.decoder().decode(SendResult.self, from: Data($0.utf8)).ids
                }
                #expect(printed == [[ids[0]], [ids[1]]])
            } else {
                #expect(finished.output == ids.map { $0 + "\n" }.joined())
            }
            #expect(
                finished.error
                    == String(
                        repeating: "lanchat: not delivered within 1 s; still queued\n", count: 2)
                    + "lanchat: 2 lines not seen delivered in time (ids above); they stay stored "
                    + "and will still be delivered\n")
        }
    }

    /// `journalctl -f | lanchat send typo --lines`: a PEER that names no one, or no daemon,
    /// fails at once, not at the first line (which may come hours later).
    @Test func linesFailAtOnceForAnUnknownPeerOrNoDaemon() async throws {
        // With no line at all (input ends at once), nothing was ever sent: before, that was
        // exit 0 whatever the peer or the daemon.
        let server = try FakeDaemon.start()
        for (peer, socket, code) in [("nobody", server as CannedServer?, 67), ("bob", nil, 69)] {
            let input = InputPipe()
            input.closeWriteEnd()
            let outcome = await run(["send", peer, "--lines"], server: socket, input: input)
            #expect(outcome.code == Int32(code), "\(peer): \(outcome.error)")
        }
    }

    @Test func badLineAmongGoodOnesSendsTheGoodOnesAndExits65() async throws {
        let server = try FakeDaemon.start()
        let input = InputPipe(closedWith: Array("a\n".utf8) + [0xFF, 10] + Array("b\n".utf8))
        let outcome = await run(["send", "bob", "--lines"], server: server, input: input)
        #expect(outcome.code == 65)
        #expect(outcome.error.contains("lanchat: line 2 is not valid UTF-8; not sent\n"))
        #expect(
            outcome.error.hasSuffix(
                "lanchat: 1 line was not sent (see above); the other lines were sent\n"))
        let texts = await sentParams(server).flatMap { $0.texts ?? [] }
        #expect(texts == ["a", "b"])
    }

    /// A group's batch makes a copy per member in one transaction: fewer lines a batch for a
    /// large group (found by QA: 1 000 lines to 255 members outlasted the call's limit).
    @Test func aGroupsBatchesAreBoundedByTheCopiesTheyMake() {
        #expect(LineSender.batchCount(members: 1) == 1_000)
        #expect(LineSender.batchCount(members: 50) == 1_000)
        #expect(LineSender.batchCount(members: 255) == 196)
        #expect(LineSender.batchCount(members: 1_000_000) == 1)
    }

    /// The one line refused: no "other lines were sent" (found by QA), and nothing is.
    @Test func aRunWhoseOnlyLineIsRefusedSaysNoLineWasSent() async throws {
        let server = try FakeDaemon.start()
        let input = InputPipe(closedWith: [0xFF, 10])
        let outcome = await run(["send", "bob", "--lines"], server: server, input: input)
        #expect(outcome.code == 65)
        #expect(
            outcome.error.hasSuffix("lanchat: 1 line was not sent (see above); no line was sent\n"),
            "\(outcome.error)")
        #expect(await sentParams(server).flatMap { $0.texts ?? [] }.isEmpty)
    }

    @Test func linesWithJSONPrintOneCompactResultPerBatch() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let input = InputPipe(closedWith: Array("a\nb\n".utf8))
        let outcome = await run(["send", "bob", "--lines", "--json"], server: server, input: input)
        #expect(outcome.code == 0)
        let lines = outcome.output.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(throws: Never.self) {
                try ControlJSON.decoder().decode(SendResult.self, from: Data(line.utf8))
            }
        }
    }

    /// The user service's socket (no --socket, no LANCHAT_SOCKET): the hint is systemctl.
    @Test func noDaemonExits69WithTheHint() async {
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            ["who"], socket: "", output: captured,
            variables: ["XDG_RUNTIME_DIR": "/nonexistent/run"])
        #expect(code == 69)
        #expect(
            captured.error
                == "lanchat: lanchatd is not running (nothing listens on "
                + "/nonexistent/run/lanchat/lanchatd.sock); "
                + "start it with: systemctl --user start lanchatd\n")
    }

    /// Another socket is served by a lanchatd started some other way: systemctl would start
    /// the user service's daemon, not the one asked for.
    @Test func noDaemonOnAnotherSocketExits69NamingThatSocket() async {
        for arguments in [["who"], ["who", "--socket", "/nonexistent/lanchat-test.sock"]] {
            let outcome = await run(arguments, server: nil)
            #expect(outcome.code == 69)
            #expect(
                outcome.error
                    == "lanchat: lanchatd is not running (nothing listens on /nonexistent/lanchat-test.sock); "
                    + "start the lanchatd that serves it (lanchatd --socket "
                    + "/nonexistent/lanchat-test.sock)\n")
        }
    }

    @Test func explicitSocketBeatsTheEnvironment() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            ["who", "--socket", server.path], socket: "/nonexistent/other.sock", output: captured)
        #expect(code == 0)
        #expect(captured.output.contains("bob@laptop (Bob)"))
    }

    @Test func whoJSONIsTheResultObject() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["who", "--json"], server: server)
        let decoded = try ControlJSON.decoder().decode(
            WhoResult.self, from: Data(outcome.output.utf8))
        #expect(decoded == WhoResult(peers: [CLIFixtures.bob]))
        #expect(outcome.output.contains("\"alias\" : \"Bob\""))
    }

    @Test func historyPassesItsOptions() async throws {
        let server = try FakeDaemon.start()
        var requests = server.requests.makeAsyncIterator()
        let outcome = await run(
            ["history", "bob", "--limit", "2", "--before", "m9"], server: server)
        #expect(outcome.code == 0)
        #expect(outcome.output.contains("11:00  Bob  hello"))
        let line = try #require(await requests.next())
        #expect(
            try Request(line: line).params(HistoryParams.self)
                == HistoryParams(peer: "bob", limit: 2, before: "m9"))
        server.stop()
    }

    @Test func presenceSetsAndReports() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["presence", "away", "--text", "lunch"], server: server)
        #expect(outcome.code == 0)
        #expect(outcome.output == "alice@box is now away: lunch\n")
    }

    @Test func tooLongStatusTextExits65WithoutConnecting() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(
            ["presence", "busy", "--text", String(repeating: "x", count: 129)], server: server)
        #expect(outcome.code == 65)
        #expect(server.connectionCount == 0)
    }

    /// A status text of only white space is refused as a name of it would be (found by QA:
    /// "   " was taken); "" clears it.
    @Test func blankStatusTextExits65WithoutConnecting() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["presence", "busy", "--text", " \u{200B} "], server: server)
        #expect(outcome.code == 65)
        #expect(outcome.error.contains("only white space or invisible characters"))
        #expect(server.connectionCount == 0)
        #expect(throws: ControlError.self) {
            try PresenceParams(status: .busy, text: "   ").validate()
        }
        try PresenceParams(status: .busy, text: "").validate()
    }

    @Test func retryWithNothingToRetrySaysSoOnStandardError() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["retry"], server: server)
        #expect(outcome.code == 0)
        #expect(outcome.output.isEmpty)
        #expect(outcome.error == "No failed messages to retry.\n")
    }

    @Test func statusText() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["status", "--color", "always"], server: server)
        #expect(outcome.code == 0)
        #expect(outcome.output.contains("\u{1B}[1malice@box\u{1B}[0m"))
    }
}
