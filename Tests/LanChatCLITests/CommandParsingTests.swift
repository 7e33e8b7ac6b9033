import ArgumentParser
import LanChatControl
import Testing

@testable import LanChatCLI

/// The command line as ArgumentParser reads it: names, options, defaults and usage errors.
@Suite struct CommandParsingTests {
    func parse<Command: ParsableCommand>(_ arguments: [String], as type: Command.Type) throws
        -> Command
    {
        try #require(try LanChatCommand.parseAsRoot(arguments) as? Command)
    }

    @Test func globalOptionsGoBeforeOrAfterTheCommand() throws {
        let before = try parse(
            ["--json", "--socket", "/s", "--color", "never", "who"], as: WhoCommand.self)
        let after = try parse(
            ["who", "--json", "--socket", "/s", "--color", "never"], as: WhoCommand.self)
        for command in [before, after] {
            #expect(command.global.json)
            #expect(command.global.socket == "/s")
            #expect(command.global.color == .never)
        }
    }

    /// `--since -1` is a cursor (a wrong one, for the daemon to refuse with 65), as
    /// `--since=-1` is, not a missing value (found by QA).
    @Test func aSinceCursorMayStartWithADash() throws {
        #expect(try parse(["watch", "--since", "-1"], as: WatchCommand.self).since == "-1")
        #expect(try parse(["watch", "--since=-1"], as: WatchCommand.self).since == "-1")
        let followed = try parse(
            ["watch", "bob", "--since", "c1", "--json"], as: WatchCommand.self)
        #expect(followed.since == "c1" && followed.global.json)
    }

    /// A status text may start with a dash (found by QA: "Missing value").
    @Test func aStatusTextMayStartWithADash() throws {
        let command = try parse(["presence", "away", "--text", "-busy-"], as: PresenceCommand.self)
        #expect(command.text == "-busy-")
    }

    @Test func defaults() throws {
        let who = try parse(["who"], as: WhoCommand.self)
        #expect(!who.global.json && who.global.socket == nil && who.global.color == .auto)
        #expect(who.query == nil && !who.all)
    }

    @Test func whoWithQueryAndAll() throws {
        let who = try parse(["who", "bo", "--all"], as: WhoCommand.self)
        #expect(who.query == "bo" && who.all)
    }

    @Test func sendKeepsWordsForJoining() throws {
        let send = try parse(["send", "bob", "build", "is", "green"], as: SendCommand.self)
        #expect(send.peer == "bob" && send.words == ["build", "is", "green"])
        #expect(!send.readsStandardInput && !send.lines && !send.wait && !send.quiet)
    }

    @Test func sendWordsMayLookLikeOptionsAfterDoubleDash() throws {
        let send = try parse(["send", "bob", "--", "-1", "--wait"], as: SendCommand.self)
        #expect(send.words == ["-1", "--wait"] && !send.wait)
    }

    @Test func sendReadsStandardInputWithoutTextOrWithDash() throws {
        #expect(try parse(["send", "bob"], as: SendCommand.self).readsStandardInput)
        #expect(try parse(["send", "bob", "-"], as: SendCommand.self).readsStandardInput)
    }

    @Test func sendWaitingOptions() throws {
        let send = try parse(
            ["send", "bob", "hi", "--wait-read", "--timeout", "2.5", "-q"], as: SendCommand.self)
        #expect(send.waitRead && send.timeout == 2.5 && send.quiet)
        for (text, seconds) in [("30", 30.0), ("0.5", 0.5), (".5", 0.5), ("7.", 7.0)] {
            let parsed = try parse(
                ["send", "bob", "hi", "--wait", "--timeout", text], as: SendCommand.self)
            #expect(parsed.timeout == seconds, "\(text)")
        }
    }

    @Test(arguments: [
        ["send", "bob", "text", "--lines"],
        ["send", "bob", "hi", "--wait", "--timeout", "0"],
        ["send", "bob", "hi", "--wait", "--timeout", "nan"],
        // Decimal seconds only (found by QA: hexadecimal was read).
        ["send", "bob", "hi", "--wait", "--timeout", "0x10"],
        ["send", "bob", "hi", "--wait", "--timeout", "0x1.8p0"],
        ["send", "bob", "hi", "--wait", "--timeout", "1e1"],
        ["send", "bob", "hi", "--wait", "--timeout", "."],
        // Over the daemon's 86 400 s: refused before connecting, never after storing.
        ["send", "bob", "hi", "--wait", "--timeout", "100000"],
        ["send", "bob", "hi", "--timeout", "5"],
        ["send"],
        ["history", "bob", "--limit", "0"],
        ["history", "bob", "--limit", "1001"],
        ["search"],
        ["search", " "],
        ["search", "x", "--limit", "0"],
        ["archive"],
        ["unarchive"],
        ["watch", "--since"],
        ["read", "bob", "carol"],
        ["presence", "asleep"],
        ["frobnicate"],
        ["who", "--colour", "never"],
        ["who", "--color", "sometimes"],
    ])
    func usageErrorsExit64(arguments: [String]) async {
        let output = CapturedOutput()
        let code = await TestEnvironment.run(arguments, output: output)
        #expect(code == 64)
        #expect(output.error.hasPrefix("lanchat: "))
        #expect(output.output.isEmpty)
    }

    /// A mistyped command is named as such, with the commands it is close to (found by QA:
    /// "3 unexpected arguments: 'sned', 'bob', 'hi'").
    @Test(arguments: [
        (["sned", "bob", "hi"], "lanchat: no command 'sned'; did you mean 'send'? "),
        (
            ["--json", "--socket", "/tmp/x", "whoo"],
            "lanchat: no command 'whoo'; did you mean 'who'? "
        ),
        (["help", "inbx"], "lanchat: no command 'inbx'; did you mean 'inbox'? "),
        (["frobnicate"], "lanchat: no command 'frobnicate'; 'lanchat --help' lists them\n"),
    ])
    func aMistypedCommandIsNamedWithTheClosestOnes(arguments: [String], start: String) async {
        let output = CapturedOutput()
        let code = await TestEnvironment.run(arguments, output: output)
        #expect(code == 64)
        #expect(output.error.hasPrefix(start), "\(output.error)")
        #expect(output.error.hasSuffix("'lanchat --help' lists them\n"), "\(output.error)")
    }

    /// A negative number is a value out of range, not a missing one.
    @Test(arguments: [
        (["history", "bob", "--limit", "-5"], "--limit must be between 1 and 1000"),
        (["search", "x", "--limit", "-1"], "--limit must be between 1 and 1000"),
        (["send", "bob", "hi", "--wait", "--timeout", "-2"], "--timeout must be more than 0"),
    ])
    func aNegativeNumberIsOutOfRange(arguments: [String], says: String) async {
        let output = CapturedOutput()
        #expect(await TestEnvironment.run(arguments, output: output) == 64)
        #expect(output.error.hasPrefix("lanchat: " + says), "\(output.error)")
    }

    /// An empty --socket (a script's empty variable) is not the default socket.
    @Test func anEmptySocketIsAUsageError() async {
        for arguments in [["--socket", "", "status"], ["status", "--socket", ""]] {
            let output = CapturedOutput()
            #expect(await TestEnvironment.run(arguments, output: output) == 64)
            #expect(output.error.hasPrefix("lanchat: --socket is empty"), "\(output.error)")
        }
    }

    /// So is an empty backup path: nothing is asked of the daemon (found by QA: it was 65).
    @Test func anEmptyBackupPathIsAUsageError() async {
        let output = CapturedOutput()
        #expect(await TestEnvironment.run(["backup", ""], output: output) == 64)
        #expect(output.error.hasPrefix("lanchat: the backup path is empty"), "\(output.error)")
    }

    @Test func historyOptions() throws {
        let history = try parse(
            ["history", "bob", "--limit", "20", "--before", "m1"], as: HistoryCommand.self)
        #expect(history.peer == "bob" && history.limit == 20 && history.before == "m1")
        #expect(
            try parse(["history", "bob", "--after", "m0"], as: HistoryCommand.self).after == "m0")
        #expect(try parse(["history", "bob"], as: HistoryCommand.self).limit == nil)
    }

    /// A page goes back or forward from one message: both is a usage error in the CLI's own
    /// terms (QA: the daemon's answer named its params, "before" and "after").
    @Test func historyWithBeforeAndAfterIsAUsageError() async {
        let output = CapturedOutput()
        #expect(
            await TestEnvironment.run(
                ["history", "bob", "--before", "m1", "--after", "m0"], output: output) == 64)
        #expect(
            output.error.hasPrefix("lanchat: give --before or --after, not both"), "\(output.error)"
        )
    }

    /// `read --from/--through` place messages in one conversation: without PEER, a usage
    /// error in the CLI's terms; with one, the ids go to the daemon as given.
    @Test func readASpanNeedsAPeer() async throws {
        let output = CapturedOutput()
        #expect(await TestEnvironment.run(["read", "--through", "m1"], output: output) == 64)
        #expect(
            output.error.hasPrefix("lanchat: --from and --through need PEER"), "\(output.error)")
        let parsed = try LanChatCommand.parseAsRoot([
            "read", "bob", "--from", "m1", "--through", "m2",
        ])
        let read = try #require(parsed as? ReadCommand)
        #expect(read.from == "m1" && read.through == "m2")
    }

    @Test func presenceValues() throws {
        for value in ["available", "away", "busy"] {
            let command = try parse(["presence", value, "--text", "t"], as: PresenceCommand.self)
            #expect(command.presence.availability.rawValue == value && command.text == "t")
        }
    }

    @Test func retryTargetIsOptional() throws {
        #expect(try parse(["retry"], as: RetryCommand.self).target == nil)
        #expect(try parse(["retry", "bob"], as: RetryCommand.self).target == "bob")
    }

    @Test func versionAndHelpExitZeroOnStandardOutput() async {
        let version = CapturedOutput()
        #expect(await TestEnvironment.run(["--version"], output: version) == 0)
        #expect(version.output == "lanchat 0.1.0 (control API 1)\n")
        let help = CapturedOutput()
        #expect(await TestEnvironment.run(["send", "--help"], output: help) == 0)
        #expect(help.output.contains("--wait-read"))
        #expect(help.error.isEmpty)
    }

    @Test func everyCommandIsTheMethodOfTheSameName() {
        // doctor, completion and the hidden complete-peers run in the CLI, not as methods;
        // chat is a session over history, send, read, typing and watch.
        let local = ["doctor", "completion", "complete-peers", "chat"]
        let names = LanChatCommand.configuration.subcommands.map { $0.configuration.commandName }
            .filter { !local.contains($0 ?? "") }
        #expect(
            names == [
                Methods.Status.name, Methods.Who.name, Methods.Send.name, Methods.Inbox.name,
                Methods.History.name, Methods.Read.name, Methods.Watch.name, Methods.Search.name,
                Methods.SetPresence.name, Methods.Retry.name, Methods.Archive.name,
                Methods.Unarchive.name, Methods.Backup.name, Methods.Contacts.name,
                Methods.Add.name, Methods.Alias.name, Methods.Verify.name, Methods.Block.name,
                Methods.Unblock.name, Methods.Remove.name, Methods.Accept.name, "group",
                Methods.Groups.name,
            ])
        // `group` is the family of the group.* methods: `group create` is group.create.
        let family = GroupCommand.configuration.subcommands.map {
            "group." + $0._commandName
        }
        #expect(
            family == [
                Methods.GroupCreate.name, Methods.GroupAdd.name, Methods.GroupRemove.name,
                Methods.GroupRename.name, Methods.GroupLeave.name,
            ])
    }

    @Test func contactCommands() throws {
        #expect(try parse(["add", "carol", "ID"], as: AddCommand.self).id == "ID")
        #expect(try parse(["alias", "bob", "--clear"], as: AliasCommand.self).clear)
        #expect(throws: (any Error).self) { try parse(["alias", "bob"], as: AliasCommand.self) }
        #expect(throws: (any Error).self) {
            try parse(["alias", "bob", "x", "--clear"], as: AliasCommand.self)
        }
        // A safety number may be typed as 12 words or one quoted argument.
        let spaced = try parse(["verify", "bob", "12345", "67890"], as: VerifyCommand.self)
        #expect(spaced.number == ["12345", "67890"])
        #expect(try parse(["remove", "bob", "--purge"], as: RemoveCommand.self).purge)
    }

    @Test func readingCommands() throws {
        let inbox = try parse(["inbox", "bo", "--archived"], as: InboxCommand.self)
        #expect(inbox.query == "bo" && inbox.archived)
        #expect(try parse(["inbox"], as: InboxCommand.self).query == nil)
        #expect(try parse(["read"], as: ReadCommand.self).peer == nil)
        #expect(try parse(["read", "bob"], as: ReadCommand.self).peer == "bob")
        #expect(try parse(["archive", "bob"], as: ArchiveCommand.self).target.peer == "bob")
        #expect(try parse(["unarchive", "bob"], as: UnarchiveCommand.self).target.peer == "bob")
        let search = try parse(
            ["search", "deploy", "done", "--peer", "ops", "--limit", "1000"], as: SearchCommand.self
        )
        #expect(search.words == ["deploy", "done"] && search.peer == "ops" && search.limit == 1000)
        let watch = try parse(["watch", "bob", "--since", "c42", "--json"], as: WatchCommand.self)
        #expect(watch.peer == "bob" && watch.since == "c42" && watch.global.json)
        #expect(try parse(["watch"], as: WatchCommand.self).since == nil)
    }
}
