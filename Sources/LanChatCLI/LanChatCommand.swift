import ArgumentParser
import LanChatControl

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
            ambiguous, 69 daemon not running, 70 internal error, 74 message store unavailable, \
            75 --wait timed out, 77 permission denied on the socket. See lanchat(1).
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
            return 0
        } catch let error as ControlError {
            output.standardError(ErrorView.render(error))
            return error.exitCode
        } catch {
            let code = LanChatCommand.exitCode(for: error)
            let text = LanChatCommand.fullMessage(for: error)
            if code == .success, let unknown = unknownHelpTopic(arguments) {
                output.standardError(
                    usageError("no command '\(unknown)'; 'lanchat --help' lists them"))
                return ExitCode.validationFailure.rawValue
            }
            if code == .success, !arguments.contains(where: { ["-h", "--help"].contains($0) }),
                arguments.filter({ !$0.hasPrefix("-") }) == ["group"]
            {
                // A command group without its command: a usage error, with the help.
                output.standardError(
                    usageError("'group' needs a command: create, add, remove, rename or leave")
                        + text + "\n")
                return ExitCode.validationFailure.rawValue
            }
            if code == .success, let word = helpByAccident(arguments) {
                // `send bob "-> see above"`: read as bundled short flags, `-h` among them, it
                // printed help and exited 0, and the message was silently not sent.
                output.standardError(
                    usageError(
                        "'\(word)' is not an option; put '--' before text that starts with '-' "
                            + "(lanchat send PEER -- '\(word)')"))
                return ExitCode.validationFailure.rawValue
            }
            if code == .success {
                output.standardOutput(text.isEmpty ? "" : text + "\n")
            } else {
                output.standardError(usageError(text))
            }
            return code.rawValue
        }
    }

    /// `lanchat help NAME` for a NAME that is no command (ArgumentParser prints the general
    /// help and exits 0, as if it were found).
    static func unknownHelpTopic(_ arguments: [String]) -> String? {
        guard arguments.first == "help", arguments.count > 1 else { return nil }
        let names = LanChatCommand.configuration.subcommands.map {
            $0.configuration.commandName ?? ""
        }
        return names.contains(arguments[1]) ? nil : arguments[1]
    }

    /// The argument that made ArgumentParser print help (or the version) without being asked
    /// for it: a word such as `-hi` or `-> see above`, which it reads as bundled short flags
    /// with `-h` among them. Nil when help was asked for (`-h`, `--help`, `help`, `--version`).
    static func helpByAccident(_ arguments: [String]) -> String? {
        let words = arguments.prefix { $0 != "--" }
        let asked = words.contains { ["-h", "--help", "--version", "help"].contains($0) }
        guard !asked else { return nil }
        return words.first { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.count > 2 }
    }

    /// ArgumentParser writes `Error: …`; lanchat writes every error as `lanchat: …`, made
    /// terminal-safe (it may quote an argument).
    static func usageError(_ text: String) -> String {
        let body = terminalSafeBlock(
            text.hasPrefix("Error: ") ? String(text.dropFirst("Error: ".count)) : text)
        return "lanchat: " + body + (body.hasSuffix("\n") ? "" : "\n")
    }
}
