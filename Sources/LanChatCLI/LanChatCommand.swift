import ArgumentParser
import LanChatClient
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// The `lanchat` command tree. Each subcommand is parse → one call to lanchatd → render,
/// and carries the same name as its control API method (`status`, `who`, `send`, …).
package struct LanChatCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "lanchat",
        abstract: "Talk to people on your LAN through the local lanchatd daemon.",
        discussion: """
            PEER is a peer's 52-character id, its key tag (XXXX-XXXX), an alias, a display \
            name (case-insensitive) or a unique case-insensitive prefix of an alias or name; \
            known offline peers resolve too.

            Exit codes: 0 success, 1 failed, 64 usage, 65 bad input, 67 peer not found or \
            ambiguous, 69 daemon not running, 70 internal error, 74 message store unavailable \
            or output not written, 75 --wait timed out or lanchatd did not answer in time \
            (look at history before sending again), 77 permission denied on the socket. \
            See lanchat(1).
            """,
        version: "lanchat \(LanChatVersion.current) (control API \(ControlAPI.version))",
        subcommands: [
            StatusCommand.self, WhoCommand.self, SendCommand.self, InboxCommand.self,
            HistoryCommand.self, ReadCommand.self, ChatCommand.self, WatchCommand.self,
            SearchCommand.self,
            PresenceCommand.self, RetryCommand.self, ArchiveCommand.self, UnarchiveCommand.self,
            BackupCommand.self, ContactsCommand.self, AddCommand.self, AliasCommand.self,
            VerifyCommand.self, BlockCommand.self, UnblockCommand.self, RemoveCommand.self,
            AcceptCommand.self, GroupCommand.self, GroupsCommand.self, DoctorCommand.self,
            CompletionCommand.self,
            CompletePeersCommand.self,
        ]
    )

    /// Declared here as well as in each subcommand so that the global options may also come
    /// before the subcommand name (`lanchat --json who`); ArgumentParser then fills both.
    @OptionGroup var global: GlobalOptions

    package init() {}
}

/// The entry point of the `lanchat` executable.
public enum LanChatCLI {
    /// What must happen before anything opens a descriptor, the async runtime included
    /// (its first suspension opened descriptor 1 when that was closed): called by the
    /// executable's top level before `main`.
    public static func prepareProcess() {
        reserveStandardDescriptors()
        // A closed pipe is an EPIPE that `StandardStreams` answers, not a signal that kills.
        signal(SIGPIPE, SIG_IGN)
    }

    /// What a command that found no daemon prints. While a lanchatd holds the default data
    /// directory, starting another would be refused, so the account says what does run:
    /// - nothing listens on the socket asked for, not even at a removed file: that lanchatd
    ///   serves another socket (a mistyped `--socket` or `LANCHAT_SOCKET`), and the socket it
    ///   listens on is what to give (found by QA: it said to start a lanchatd for the typo,
    ///   which exits 75, and to kill the one that runs);
    /// - otherwise its socket was most likely removed (a /tmp cleaner), and only a restart
    ///   binds it again (found by QA: `status` sent the user to start a second daemon).
    static func notRunningAccount(_ error: ControlError, arguments: [String]) -> String {
        let said = ErrorView.render(error)
        guard error.isDaemonNotRunning else { return said }
        let environment = CLIEnvironment.current
        guard let directory = DataDirectoryPath.defaultDirectory(environment: environment.variables)
        else { return said }
        let socket = ControlSocketPath.resolve(
            explicit: socketOption(arguments), environment: environment.variables,
            uid: environment.uid)
        let asked = [socket, DoctorGathering.absolutePath(socket)]
        let lock = DataDirectoryLockProbe.probe(directory: directory, socketPaths: asked)
        guard let pid = lock.holderPID else { return said }
        if lock.socketStillBound == false, lock.holderIsStarting(asked: asked) {
            return usageError(
                "lanchatd (PID \(pid)) on \(directory) is starting and has not opened its "
                    + "socket yet; try again in a moment")
        }
        if lock.socketStillBound == false {
            let quoted = shellQuoted(socket)
            return usageError(
                "nothing listens on \(socket), and the lanchatd that runs on \(directory) "
                    + "(PID \(pid)) listens on another socket: \(lock.socketToGive); or start "
                    + "a lanchatd for \(quoted) with a data directory of its own (lanchatd "
                    + "--socket \(quoted) --data-dir DIR)")
        }
        return said
            + "lanchat: yet lanchatd (PID \(pid)) runs on \(directory): if its socket was removed, "
            + "restart it (systemctl --user restart lanchatd, or kill \(pid) and start it "
            + "again); 'lanchat doctor' says more\n"
    }

    /// The value of `--socket` on the command line, if given (before or after the command).
    static func socketOption(_ arguments: [String]) -> String? {
        let words = Array(arguments.prefix { $0 != "--" })
        for (index, word) in words.enumerated() {
            if word == "--socket", index + 1 < words.count { return words[index + 1] }
            if word.hasPrefix("--socket=") { return String(word.dropFirst("--socket=".count)) }
        }
        return nil
    }

    /// Runs the command line of this process and exits with its code.
    public static func main() async -> Never {
        let code = await run(Array(CommandLine.arguments.dropFirst()))
        exitProcess(code)
    }

    /// Parses and runs one command line; returns the exit code. Everything printed goes
    /// through `CLIEnvironment.current.output`, so tests run commands in-process.
    ///
    /// Exit codes come from `ControlError.exitCode` only, plus ArgumentParser's 64 for
    /// usage errors and 0 for `--help`/`--version`.
    package static func run(_ arguments: [String]) async -> Int32 {
        let output = CLIEnvironment.current.output
        do {
            var command = try LanChatCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return output.outputFailed ? Self.outputFailedExitCode : 0
        } catch let error as ControlError {
            output.standardError(notRunningAccount(error, arguments: arguments))
            return error.exitCode
        } catch {
            let code = LanChatCommand.exitCode(for: error)
            let text = LanChatCommand.fullMessage(for: error)
            if code == .success, let refusal = helpNotAskedFor(arguments, help: text) {
                output.standardError(refusal)
                return ExitCode.validationFailure.rawValue
            }
            if code == .success {
                output.standardOutput(text.isEmpty ? "" : text + "\n")
                if output.outputFailed { return Self.outputFailedExitCode }
            } else {
                output.standardError(unknownCommand(arguments) ?? usageError(text))
            }
            return code.rawValue
        }
    }

    /// The command did its work but its output could not all be written (EX_IOERR).
    static let outputFailedExitCode: Int32 = 74

    /// ArgumentParser printed `help` (exit 0) where the user asked for something else; the
    /// usage error to print instead (exit 64), nil when help was what was asked for:
    /// - `lanchat help NAME` for a NAME that is no command (it prints the general help);
    /// - `lanchat` without a command (with the help after the error);
    /// - `lanchat group` without its command (with the group's help after the error);
    /// - a word such as `-hi` or `-> see above`, read as bundled short flags with `-h` among
    ///   them: it printed help and the message was silently not sent.
    static func helpNotAskedFor(_ arguments: [String], help: String) -> String? {
        let names = commandNames
        if arguments.first == "help", arguments.count > 1 {
            // `help help` and `help --help` ask for help too (found by QA: "no command
            // 'help'", while lanchat(1) lists `help` among the commands).
            guard !names.contains(arguments[1]), !["help", "-h", "--help"].contains(arguments[1])
            else { return nil }
            return noCommand(arguments[1])
        }
        let words = arguments.prefix { $0 != "--" }
        guard !words.contains(where: { ["-h", "--help", "--version", "help"].contains($0) })
        else { return nil }
        // `lanchat` or `lanchat --json` alone: a script with an empty command variable must
        // not read the help as success (found by QA).
        if !words.contains(where: names.contains) {
            return usageError("no command given; the commands are:") + help + "\n"
        }
        if words.filter({ !$0.hasPrefix("-") }) == ["group"] {
            return usageError("'group' needs a command: create, add, remove, rename or leave")
                + help + "\n"
        }
        guard
            let word = words.first(where: {
                $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.count > 2
            })
        else { return nil }
        return usageError(
            "'\(word)' is not an option; put '--' before text that starts with '-' "
                + "(lanchat send PEER -- '\(word)')")
    }

    /// The usage error for a command line whose command is no command (`lanchat sned bob hi`),
    /// with the closest ones; nil when its command is one. ArgumentParser said "3 unexpected
    /// arguments: 'sned', 'bob', 'hi'" (found by QA).
    static func unknownCommand(_ arguments: [String]) -> String? {
        var index = 0
        // The global options come before the command; two take a value.
        while index < arguments.count, arguments[index].hasPrefix("-") {
            if ["--socket", "--color"].contains(arguments[index]) { index += 1 }
            index += 1
        }
        guard index < arguments.count, !commandNames.contains(arguments[index]),
            arguments[index] != "help"
        else { return nil }
        return noCommand(arguments[index])
    }

    /// The names of lanchat's commands.
    static var commandNames: [String] {
        LanChatCommand.configuration.subcommands.compactMap { $0.configuration.commandName }
    }

    /// "no command 'sned'; did you mean 'send'? …": the commands a typo or two away.
    static func noCommand(_ word: String) -> String {
        let lowered = word.lowercased()
        let close = commandNames.compactMap { name in
            EditDistance.between(lowered, name, atMost: name.count <= 3 ? 1 : 2).map { (name, $0) }
        }.sorted { $0.1 < $1.1 }.prefix(3).map { "'\($0.0)'" }
        let suggestion = close.isEmpty ? "" : "did you mean \(close.joined(separator: " or "))? "
        return usageError("no command '\(word)'; \(suggestion)'lanchat --help' lists them")
    }

    /// ArgumentParser writes `Error: …`; lanchat writes every error as `lanchat: …`, made
    /// terminal-safe (it may quote an argument).
    static func usageError(_ text: String) -> String {
        let body = terminalSafeError(
            text.hasPrefix("Error: ") ? String(text.dropFirst("Error: ".count)) : text)
        return "lanchat: " + body + (body.hasSuffix("\n") ? "" : "\n")
    }
}
