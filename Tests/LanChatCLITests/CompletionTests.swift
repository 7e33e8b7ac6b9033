import LanChatControl
import Testing

@testable import LanChatCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `lanchat completion bash|zsh|fish` and the hidden `lanchat complete-peers` it calls: the
/// scripts load in each shell without errors, and completing a PEER in bash and fish offers
/// the daemon's peers (the built `lanchat` answering from a canned daemon).
@Suite(.timeLimit(.minutes(1))) struct CompletionTests {
    static func installed(_ shell: String) -> Bool {
        ["/usr/bin/", "/bin/"].contains { access($0 + shell, X_OK) == 0 }
    }

    static var lanchat: String? {
        LinkageTests.builtBinaryPath("lanchat").flatMap { access($0, X_OK) == 0 ? $0 : nil }
    }

    func script(_ shell: String) async -> (code: Int32, text: String, error: String) {
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(["completion", shell], output: captured)
        return (code, captured.output, captured.error)
    }

    /// The script for `shell` in a temporary file, removed by the caller.
    func scriptFile(_ shell: String) async throws -> String {
        let (code, text, error) = await script(shell)
        try #require(code == 0, "\(error)")
        var template = Array("/tmp/lanchat-completion-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        let path = String(
            decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
            as: UTF8.self)
        var bytes = Array(text.utf8)
        _ = write(fd, &bytes, bytes.count)
        close(fd)
        return path
    }

    /// Runs `arguments` with `variables` added to the environment; exit status and stderr.
    func run(_ arguments: [String], variables: [String] = []) async throws -> ChildProcess.Outcome {
        try #require(await ChildProcess.run(["/usr/bin/env"] + variables + arguments))
    }

    // MARK: The scripts

    @Test func eachShellGetsAScriptWithTheCommandsAndThePeerHook() async {
        for shell in ["bash", "zsh", "fish"] {
            let (code, text, error) = await script(shell)
            #expect(code == 0 && error.isEmpty, "\(shell): \(error)")
            for word in [
                "doctor", "completion", "send", "history", "json", "---completion",
            ] {
                #expect(text.contains(word), "\(shell) script lacks \(word)")
            }
        }
    }

    @Test func anUnknownShellIsAUsageError() async {
        let (code, _, error) = await script("tcsh")
        #expect(code == 64)
        #expect(error.contains("tcsh"))
    }

    @Test(.enabled(if: installed("bash"))) func theBashScriptLoads() async throws {
        let path = try await scriptFile("bash")
        defer { unlink(path) }
        let syntax = try await run(["bash", "-n", path])
        #expect(syntax.status == 0 && syntax.standardError.isEmpty, "\(syntax.standardError)")
        let loaded = try await run(["bash", "-c", "source \"$0\" && complete -p lanchat", path])
        #expect(loaded.status == 0 && loaded.standardError.isEmpty, "\(loaded.standardError)")
    }

    @Test(.enabled(if: installed("zsh"))) func theZshScriptLoads() async throws {
        let path = try await scriptFile("zsh")
        defer { unlink(path) }
        // -f: no user rc files; compinit -u: no complaint about insecure directories.
        let loaded = try await run([
            "zsh", "-f", "-c",
            "autoload -U compinit && compinit -u -D && source \"$1\" && (( $+functions[_lanchat] ))",
            "zsh", path,
        ])
        #expect(loaded.status == 0 && loaded.standardError.isEmpty, "\(loaded.standardError)")
    }

    @Test(.enabled(if: installed("fish"))) func theFishScriptLoads() async throws {
        let path = try await scriptFile("fish")
        defer { unlink(path) }
        let syntax = try await run(["fish", "--no-config", "-n", path])
        #expect(syntax.status == 0 && syntax.standardError.isEmpty, "\(syntax.standardError)")
        let loaded = try await run(["fish", "--no-config", "-c", "source $argv[1]", path])
        #expect(loaded.status == 0 && loaded.standardError.isEmpty, "\(loaded.standardError)")
    }

    // MARK: Completing a PEER

    /// PATH with the built lanchat first, and its socket pointing at `server`.
    func completionEnvironment(_ server: CannedServer, lanchat: String) -> [String] {
        let directory = parentDirectory(of: lanchat)
        return [
            "PATH=\(directory):/usr/bin:/bin", "LANCHAT_SOCKET=\(server.path)", "HOME=/nonexistent",
        ]
    }

    /// What bash offers at the end of `words` (the last one being completed), as it does on
    /// Tab: the script sourced, the COMP_* variables set, its function called.
    func bashCompletions(_ words: [String], variables: [String]) async throws -> [String] {
        let path = try await scriptFile("bash")
        defer { unlink(path) }
        let line = words.joined(separator: " ")
        let outcome = try await run(
            [
                "bash", "-c",
                """
                source "$0"; shift
                COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
                COMP_LINE=\(shellQuoted(line)); COMP_POINT=\(line.utf8.count)
                _lanchat lanchat "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
                printf '%s\\n' "${COMPREPLY[@]}" >&2
                """,
                path, "-",
            ] + words, variables: variables)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        return outcome.standardError.split(separator: "\n").map(String.init)
    }

    @Test(.enabled(if: installed("bash") && lanchat != nil))
    func bashCompletesPeersFromTheDaemon() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let offered = try await bashCompletions(
            ["lanchat", "send", "B"],
            variables: completionEnvironment(server, lanchat: try #require(Self.lanchat)))
        #expect(offered.contains("Bob"), "\(offered)")
    }

    /// A GROUP-only argument offers groups, a group's members peers (QA: `group rename
    /// <Tab>` offered peers, `group create x <Tab>` groups); PEER-or-GROUP offers both.
    @Test(.enabled(if: installed("bash") && lanchat != nil))
    func bashCompletesGroupsOrPeersAsTheArgumentTakes() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let variables = completionEnvironment(server, lanchat: try #require(Self.lanchat))
        let group = try await bashCompletions(
            ["lanchat", "group", "rename", ""], variables: variables)
        #expect(group.contains("ops") && !group.contains("Bob"), "\(group)")
        let members = try await bashCompletions(
            ["lanchat", "group", "create", "x", ""], variables: variables)
        #expect(members.contains("Bob") && !members.contains("ops"), "\(members)")
        let either = try await bashCompletions(["lanchat", "send", ""], variables: variables)
        #expect(either.contains("Bob") && either.contains("ops"), "\(either)")
    }

    /// The daemon the completed command line names with `--socket`, not the default one:
    /// `lanchat --socket PATH send B<Tab>` with no LANCHAT_SOCKET.
    @Test(.enabled(if: installed("bash") && lanchat != nil))
    func bashCompletesPeersOfTheSocketOnTheCommandLine() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let environment =
            completionEnvironment(server, lanchat: try #require(Self.lanchat))
            .filter { !$0.hasPrefix("LANCHAT_SOCKET=") } + ["XDG_RUNTIME_DIR=/nonexistent"]
        let offered = try await bashCompletions(
            ["lanchat", "--socket", server.path, "send", "B"], variables: environment)
        #expect(offered.contains("Bob"), "\(offered)")
    }

    @Test(.enabled(if: installed("fish") && lanchat != nil))
    func fishCompletesPeersFromTheDaemon() async throws {
        let path = try await scriptFile("fish")
        defer { unlink(path) }
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = try await run(
            [
                // fish 3 lets a script read the command line (`commandline`) only at a
                // prompt, not under `complete -C`: the script's reader of it answers here as
                // fish would at `lanchat send <Tab>`.
                "fish", "--no-config", "-c",
                """
                source $argv[1]
                function __lanchat_tokens
                    switch "$argv"
                        case -tC; echo 0
                        case -t; echo ''
                        case '*'; printf '%s\\n' lanchat send
                    end
                end
                complete -C 'lanchat send ' >&2
                """,
                path,
            ],
            variables: completionEnvironment(server, lanchat: try #require(Self.lanchat)))
        #expect(outcome.status == 0)
        let words = outcome.standardError.split(separator: "\n").map {
            $0.split(separator: "\t").first ?? ""
        }
        #expect(words.contains("Bob"), "\(outcome.standardError)")
    }

    // MARK: complete-peers

    @Test func completePeersPrintsNothingAndSucceedsWithoutADaemon() async {
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(["complete-peers"], output: captured)
        #expect(code == 0)
        #expect(captured.output.isEmpty && captured.error.isEmpty)
    }

    @Test func completePeersPrintsOneWordAPeerThenAGroup() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            ["complete-peers"], socket: server.path, output: captured)
        #expect(code == 0)
        #expect(captured.output == "Bob\nops\n")
    }

    @Test func completePeersIsHiddenFromHelp() async {
        let captured = CapturedOutput()
        _ = await TestEnvironment.run(["--help"], output: captured)
        #expect(captured.output.contains("doctor"))
        #expect(!captured.output.contains("complete-peers"))
    }

    @Test func peerWordsAreAliasesOrNamesElseKeyTags() {
        let peer = { (name: String, alias: String?, tag: String) in
            PeerInfo(id: tag, keyTag: tag, name: name, alias: alias, presence: .online)
        }
        let words = PeerCompletion.words([
            peer("bob@laptop", "Bob", "BOBB-2345"),
            peer("carol@desk", nil, "CARO-L234"),
            peer("Dave Smith", nil, "DAVE-2222"),
            peer("eve:x", nil, "EVEE-3333"),
            peer("twin", nil, "TWIN-4444"),
            peer("Twin", nil, "TWIN-5555"),
            peer("$(reboot)", nil, "$(reboot)"),
        ])
        #expect(words == ["Bob", "carol@desk", "DAVE-2222", "EVEE-3333", "TWIN-4444", "TWIN-5555"])
    }

    /// GROUP arguments complete too: a group's name, or its id where the name would be
    /// ambiguous (a peer's name, another group's) or unsafe for the shell.
    @Test func groupWordsAreNamesElseIds() {
        let bob = PeerInfo(id: "B", keyTag: "BOBB-2345", name: "bob", presence: .online)
        let group = { (name: String, id: String) in
            GroupInfo(id: id, name: name, members: [bob], version: 1)
        }
        let words = PeerCompletion.words(
            [bob],
            groups: [
                group("ops", "0a"), group("Bob", "0b"), group("lunch time", "0c"),
                group("dup", "0d"), group("DUP", "0e"),
            ])
        #expect(words == ["bob", "ops", "0b", "0c", "0d", "0e"])
    }
}
