import LanChatClient
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
    /// Tab: the script sourced, the COMP_* variables set, the function it registered for
    /// `lanchat` called. `line` is the command line when bash's words are not its words
    /// joined by spaces (bash splits `--socket=PATH` into `--socket`, `=`, `PATH`).
    func bashCompletions(_ words: [String], line: String? = nil, variables: [String])
        async throws -> [String]
    {
        let path = try await scriptFile("bash")
        defer { unlink(path) }
        let line = line ?? words.joined(separator: " ")
        let outcome = try await run(
            [
                "bash", "-c",
                """
                source "$0"; shift
                COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
                COMP_LINE=\(shellQuoted(line)); COMP_POINT=\(line.utf8.count)
                spec="$(complete -p lanchat)"; function="${spec##*-F }"; function="${function%% *}"
                "${function}" lanchat "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
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

    /// A GROUP-only argument offers groups, a PEER-only one (a group's members, `block`…)
    /// peers (QA: `group rename <Tab>` offered peers, `group create x <Tab>` groups);
    /// PEER-or-GROUP offers both.
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
        // A new group's name is the user's to make up (found by QA: peers were offered).
        let name = try await bashCompletions(
            ["lanchat", "group", "create", ""], variables: variables)
        #expect(name.filter { !$0.isEmpty }.isEmpty, "\(name)")
        for command in ["send", "archive", "accept"] {
            let either = try await bashCompletions(["lanchat", command, ""], variables: variables)
            #expect(either.contains("Bob") && either.contains("ops"), "\(command): \(either)")
        }
        // Commands that take a peer only offer no group (found by QA: `block <Tab>` offered
        // groups, which the command then refused with exit 67).
        for command in ["block", "unblock", "verify", "alias", "remove", "retry"] {
            let peers = try await bashCompletions(["lanchat", command, ""], variables: variables)
            #expect(peers.contains("Bob") && !peers.contains("ops"), "\(command): \(peers)")
        }
    }

    /// A whole option being completed stays on offer, and an option given already is not
    /// offered again (found by QA: `--wait<Tab>` became `--wait-read`, and `--limit 5 --l`
    /// offered `--limit`).
    @Test(.enabled(if: installed("bash") && lanchat != nil))
    func bashKeepsTheOptionBeingCompletedAndDropsTheOnesGiven() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let variables = completionEnvironment(server, lanchat: try #require(Self.lanchat))
        let wait = try await bashCompletions(
            ["lanchat", "send", "Bob", "--wait"], variables: variables)
        #expect(wait.contains("--wait") && wait.contains("--wait-read"), "\(wait)")
        let limit = try await bashCompletions(
            ["lanchat", "history", "Bob", "--limit", "5", "--l"], variables: variables)
        #expect(!limit.contains("--limit"), "\(limit)")
    }

    /// Only a path's words are file names to bash (found by QA: `send op<Tab>` gave `ops/`
    /// in a directory holding `ops`, as `-o filenames` held for every word).
    @Test(.enabled(if: installed("bash"))) func bashTreatsOnlyPathsAsFileNames() async throws {
        let path = try await scriptFile("bash")
        defer { unlink(path) }
        func completingPath(_ words: [String], previous: String) async throws -> Bool {
            let outcome = try await run(
                [
                    "bash", "-c",
                    """
                    source "$0"; shift
                    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
                    __lanchat_completing_path \(shellQuoted(previous)) && echo path >&2 || echo words >&2
                    """,
                    path, "-",
                ] + words)
            #expect(outcome.status == 0, "\(outcome.standardError)")
            return outcome.standardError.hasPrefix("path")
        }
        #expect(try await !completingPath(["lanchat", "send", "op"], previous: "send"))
        #expect(try await !completingPath(["lanchat", "chat", ""], previous: "chat"))
        #expect(
            try await !completingPath(
                ["lanchat", "--socket", "/tmp/s", "send", "b"], previous: "send"))
        #expect(try await completingPath(["lanchat", "--socket", "/tm"], previous: "--socket"))
        #expect(try await completingPath(["lanchat", "backup", "copy"], previous: "backup"))
        #expect(
            try await completingPath(
                ["lanchat", "--color", "never", "backup", ""], previous: "backup"))
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

    // MARK: What QA found

    /// A daemon whose peers need what QA found missing: `José` (a name that completes from
    /// `jo`), `Dave Smith` (a name with a space: its key tag is offered, described by it).
    static func peopleDaemon() throws -> CannedServer {
        let people = [
            CLIFixtures.bob,
            PeerInfo(id: "J", keyTag: "JOSE-2345", name: "José", presence: .online),
            PeerInfo(id: "D", keyTag: "DAVE-2222", name: "Dave Smith", presence: .online),
        ]
        return try CannedServer.replying { request in
            switch request.method {
            case Methods.Who.name: Reply.result(request, WhoResult(peers: people))
            case Methods.Groups.name:
                Reply.result(
                    request,
                    GroupsResult(groups: [
                        GroupInfo(
                            id: String(repeating: "0a", count: 16), name: "ops",
                            members: [CLIFixtures.bob], version: 1)
                    ]))
            default: Reply.error(request, .methodNotFound(request.method))
            }
        }
    }

    /// The environment of a completing shell with no LANCHAT_SOCKET and no daemon at the
    /// default socket: only the command line's `--socket` can name `server`.
    func onlyTheCommandLineNames(_ server: CannedServer, lanchat: String) -> [String] {
        completionEnvironment(server, lanchat: lanchat).filter {
            !$0.hasPrefix("LANCHAT_SOCKET=")
        } + ["XDG_RUNTIME_DIR=/nonexistent"]
    }

    /// `lanchat --socket=PATH chat <Tab>` offered commands: bash had split the option at `=`
    /// and taken PATH for the command. Its words here are bash's.
    @Test(.enabled(if: installed("bash") && lanchat != nil))
    func bashReadsSocketEqualsPath() async throws {
        let server = try Self.peopleDaemon()
        defer { server.stop() }
        let variables = onlyTheCommandLineNames(server, lanchat: try #require(Self.lanchat))
        let offered = try await bashCompletions(
            ["lanchat", "--socket", "=", server.path, "chat", ""],
            line: "lanchat --socket=\(server.path) chat ", variables: variables)
        #expect(offered == ["Bob", "José", "DAVE-2222", "ops"], "\(offered)")
        // The value after `=` completes as the option's.
        let colour = try await bashCompletions(
            ["lanchat", "--color", "=", "al"], line: "lanchat --color=al", variables: variables)
        #expect(colour == ["always"], "\(colour)")
    }

    /// Names resolve case-insensitively, so they complete so: `chat jo` offers `José`.
    @Test(.enabled(if: installed("bash") && lanchat != nil))
    func bashMatchesPeersWhateverTheCase() async throws {
        let server = try Self.peopleDaemon()
        defer { server.stop() }
        let variables = completionEnvironment(server, lanchat: try #require(Self.lanchat))
        #expect(
            try await bashCompletions(["lanchat", "chat", "jo"], variables: variables)
                == ["José"])
        #expect(
            try await bashCompletions(["lanchat", "chat", "dave-"], variables: variables)
                == ["DAVE-2222"])
    }

    /// `group add GROUP <Tab>` offers the peers not in it yet, `group remove GROUP <Tab>` its
    /// members (found by QA: every peer for both), whether GROUP is its name or #NAME, with
    /// --socket before it; a GROUP that names no group offers every peer.
    @Test(.enabled(if: installed("bash") && lanchat != nil))
    func bashOffersWhoCanBeAddedOrRemoved() async throws {
        let server = try Self.peopleDaemon()
        defer { server.stop() }
        let variables = completionEnvironment(server, lanchat: try #require(Self.lanchat))
        let add = try await bashCompletions(
            ["lanchat", "group", "add", "ops", ""], variables: variables)
        #expect(Set(add) == ["José", "DAVE-2222"], "\(add)")
        let remove = try await bashCompletions(
            ["lanchat", "group", "remove", "--socket", server.path, "OPS", ""],
            variables: variables)
        #expect(remove == ["Bob"], "\(remove)")
        let unknown = try await bashCompletions(
            ["lanchat", "group", "add", "nosuch", ""], variables: variables)
        #expect(Set(unknown) == ["Bob", "José", "DAVE-2222"], "\(unknown)")
        #expect(PeerCompletion.memberIDs(of: "#ops", in: [Self.ops]) == [CLIFixtures.bob.id])
    }

    static let ops = GroupInfo(
        id: String(repeating: "0a", count: 16), name: "ops", members: [CLIFixtures.bob],
        version: 1)

    @Test(.enabled(if: installed("bash"))) func bashCompletesTheCommandsHelpTakes() async throws {
        let topics = try await bashCompletions(["lanchat", "help", ""], variables: [])
        #expect(topics.contains("doctor") && topics.contains("group"), "\(topics)")
        #expect(!topics.contains("complete-peers"))
        let group = try await bashCompletions(["lanchat", "help", "group", ""], variables: [])
        #expect(group == ["create", "add", "remove", "rename", "leave"], "\(group)")
        #expect(try await bashCompletions(["lanchat", "help", "do"], variables: []) == ["doctor"])
    }

    /// What zsh offers on Tab at the end of `line`, and what it shows beside the matches:
    /// an interactive zsh on a pseudo-terminal (zpty) with the script loaded, its compadd
    /// logging what it is given.
    func zshCompletions(_ line: String, variables: [String]) async throws -> (
        matches: [String], shown: [String]
    ) {
        let path = try await scriptFile("zsh")
        defer { unlink(path) }
        let log = try TemporaryDirectory.make()
        defer {
            for file in ["matches", "shown", "done"] { unlink(log + "/" + file) }
            rmdir(log)
        }
        let outcome = try await run(
            [
                "zsh", "-f", "-c",
                """
                zmodload zsh/zpty || exit 2
                zpty z zsh -f -i
                zpty -w z "PS1='> '; autoload -U compinit && compinit -u -D; source ${(q)1}"
                # Each compadd also writes its matches (-O) and what it shows for them (-d).
                zpty -w z "compadd() { local -a m; builtin compadd -O m \\"\\$@\\"; \\
                print -rl -- \\"\\${m[@]}\\" >> $2/matches; local -i i; \\
                for (( i = 1; i < \\$#; i++ )); do [[ \\${@[i]} == -d ]] && \\
                print -rl -- \\"\\${(@P)\\${@[i+1]}}\\" >> $2/shown; done; \\
                builtin compadd \\"\\$@\\"; }"
                zpty -w z "functions[_tested]=\\$functions[_lanchat]; \\
                _lanchat() { _tested \\"\\$@\\"; print > $2/done; }"
                zpty -w -n z "$3"$'\\t'
                for i in {1..100}; do [[ -e $2/done ]] && break; sleep 0.1; done
                zpty -d z
                [[ -e $2/done ]] || exit 3
                """,
                "zsh", path, log, line,
            ], variables: variables)
        try #require(outcome.status == 0, "zsh harness: \(outcome.status) \(outcome.standardError)")
        func lines(_ file: String) -> [String] {
            let bytes = LinkageTests.readFile(log + "/" + file) ?? []
            return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        return (lines("matches"), lines("shown"))
    }

    /// zsh: `--socket=PATH` (its specs took the value from the next word only), names
    /// whatever the case, key tags shown with the peer's name, `help`'s commands.
    @Test(.enabled(if: installed("zsh") && lanchat != nil))
    func zshCompletesAsQAExpected() async throws {
        let server = try Self.peopleDaemon()
        defer { server.stop() }
        let variables = onlyTheCommandLineNames(server, lanchat: try #require(Self.lanchat))
        let afterEquals = try await zshCompletions(
            "lanchat --socket=\(server.path) chat ", variables: variables)
        #expect(Set(afterEquals.matches).isSuperset(of: ["Bob", "José", "DAVE-2222"]))
        #expect(
            afterEquals.shown.contains { $0.hasPrefix("DAVE-2222") && $0.hasSuffix("Dave Smith") },
            "\(afterEquals.shown)")
        let lowerCase = try await zshCompletions(
            "lanchat --socket \(server.path) chat jo", variables: variables)
        #expect(lowerCase.matches == ["José"], "\(lowerCase.matches)")
        let help = try await zshCompletions("lanchat help gr", variables: variables)
        #expect(Set(help.matches) == ["group", "groups"], "\(help.matches)")
    }

    /// What fish offers for `line` (ending where Tab is pressed), each with its description
    /// after a tab. fish 3 lets a script read the command line only at a prompt: the
    /// script's reader of it answers here as fish would.
    func fishCompletions(_ line: String, variables: [String]) async throws -> [String] {
        let path = try await scriptFile("fish")
        defer { unlink(path) }
        let tokens = line.split(separator: " ").map(String.init)
        let completed = line.hasSuffix(" ") ? tokens : Array(tokens.dropLast())
        let current = line.hasSuffix(" ") ? "" : tokens.last ?? ""
        let outcome = try await run(
            [
                "fish", "--no-config", "-c",
                """
                source $argv[1]
                set -g completed $argv[2..-2]
                set -g current $argv[-1]
                function __lanchat_tokens
                    switch "$argv"
                        case -tC; string length -- $current
                        case -t; echo $current
                        case -pc; printf '%s\\n' $completed
                        case '*'; printf '%s\\n' $completed $current
                    end
                end
                complete -C (string join ' ' -- $completed $current) >&2
                """,
                path,
            ] + completed + [current], variables: variables)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        return outcome.standardError.split(separator: "\n").map(String.init)
    }

    /// fish reads `--socket=PATH` and matches case aside by itself; the key tag is described
    /// by the peer's name, and `help` offers the commands.
    @Test(.enabled(if: installed("fish") && lanchat != nil))
    func fishCompletesAsQAExpected() async throws {
        let server = try Self.peopleDaemon()
        defer { server.stop() }
        let variables = onlyTheCommandLineNames(server, lanchat: try #require(Self.lanchat))
        let afterEquals = try await fishCompletions(
            "lanchat --socket=\(server.path) chat ", variables: variables)
        #expect(afterEquals.contains("DAVE-2222\tDave Smith"), "\(afterEquals)")
        #expect(afterEquals.contains("José"), "\(afterEquals)")
        let lowerCase = try await fishCompletions(
            "lanchat --socket=\(server.path) chat jo", variables: variables)
        #expect(lowerCase == ["José"], "\(lowerCase)")
        let help = try await fishCompletions("lanchat help ", variables: variables)
        #expect(help.contains("doctor") && help.contains("group"), "\(help)")
        let group = try await fishCompletions("lanchat help group ", variables: variables)
        #expect(group == ["create", "add", "remove", "rename", "leave"], "\(group)")
        let newName = try await fishCompletions(
            "lanchat --socket=\(server.path) group create ", variables: variables)
        #expect(newName.isEmpty, "\(newName)")
        let removable = try await fishCompletions(
            "lanchat --socket=\(server.path) group remove ops ", variables: variables)
        #expect(removable == ["Bob"], "\(removable)")
    }

    /// A group we left is offered for reading, not for a change of ours (found by QA).
    @Test func aGroupWeLeftIsNoTargetOfAGroupChange() {
        let bob = PeerInfo(id: "B", keyTag: "BOBB-2345", name: "bob", presence: .online)
        var left = GroupInfo(id: "0c", name: "old", members: [bob], version: 2)
        left.left = true
        let ops = GroupInfo(id: "0d", name: "ops", members: [bob], version: 1)
        let all = PeerCompletion.words([bob], groups: [left, ops])
        #expect(all == ["bob", "old", "ops"], "\(all)")
        let changeable = PeerCompletion.words([bob], groups: [left, ops], kind: .groups)
        #expect(changeable == ["ops"], "\(changeable)")
        // Nor a target to write to (`send`, `chat`).
        let writable = PeerCompletion.words([bob], groups: [left, ops], kind: .sendTargets)
        #expect(writable == ["bob", "ops"], "\(writable)")
    }

    /// Only zsh and fish show descriptions; bash takes each line for a word.
    @Test func keyTagsAndGroupIdsAreDescribedByTheirNames() {
        let dave = PeerInfo(
            id: "D", keyTag: "DAVE-2222", name: "Dave\u{1B}[2J Smith", presence: .online)
        let lunch = GroupInfo(id: "0c", name: "lunch time", members: [dave], version: 1)
        let candidates = PeerCompletion.candidates([CLIFixtures.bob, dave], groups: [lunch])
        #expect(
            candidates.map { $0.line(for: .zsh) } == [
                "Bob", "DAVE-2222:Dave\\u{1B}[2J Smith", "0c:lunch time",
            ])
        #expect(candidates.map { $0.line(for: .fish) }[1] == "DAVE-2222\tDave\\u{1B}[2J Smith")
        #expect(candidates.map { $0.line(for: .bash) } == ["Bob", "DAVE-2222", "0c"])
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

    /// Found by QA: a word lanchatd resolves to two peers was offered (and then refused with
    /// 67): another peer's name in another case, or a name a new key's warning claims.
    @Test func aPeerWordIsOfferedOnlyWhereItResolvesToThatPeerAlone() {
        let peer = { (name: String, alias: String?, tag: String) in
            PeerInfo(id: tag, keyTag: tag, name: name, alias: alias, presence: .online)
        }
        let frank = peer("frank", "fr", "FRAN-2345")
        let loud = peer("FRANK", nil, "FRAN-3456")
        // "FRANK" is frank's name too; "fr", an alias, is frank's alone.
        #expect(PeerCompletion.words([frank, loud]) == ["fr", "FRAN-3456"])
        // An alias wins over another peer's name, as in lanchatd.
        let robert = peer("bob", "Robert", "BOBB-2345")
        let other = peer("robert", nil, "ROBE-2345")
        #expect(PeerCompletion.words([robert, other]) == ["Robert", "ROBE-2345"])
        // A key whose warning claims bob's name makes "Robert" ambiguous as well.
        let claimant = peer("bob", nil, "NEWB-2345")
        let change = KeyChangeInfo(
            peer: PeerCandidate(id: "NEWB-2345", keyTag: "NEWB-2345", name: "bob", alias: nil),
            previous: PeerCandidate(id: "BOBB-2345", keyTag: "BOBB-2345", name: "bob", alias: nil))
        #expect(
            PeerCompletion.words([robert, claimant], keyChanges: [change])
                == ["BOBB-2345", "NEWB-2345"])
    }

    /// GROUP arguments complete too: a group's name, or its id where the name would be
    /// ambiguous (a peer's name, another group's) or unsafe for the shell.
    /// The words for bob and groups of bob's, each given as (name, id).
    static func wordsWithBob(groups: [(name: String, id: String)]) -> [String] {
        let bob = PeerInfo(id: "B", keyTag: "BOBB-2345", name: "bob", presence: .online)
        return PeerCompletion.words(
            [bob],
            groups: groups.map { GroupInfo(id: $0.id, name: $0.name, members: [bob], version: 1) })
    }

    @Test func groupWordsAreNamesElseIds() {
        let words = Self.wordsWithBob(groups: [
            ("ops", "0a"), ("Bob", "0b"), ("lunch time", "0c"), ("dup", "0d"), ("DUP", "0e"),
        ])
        // The group Bob and the peer bob share a name: neither is offered by it (found by
        // QA: `bob` was, and lanchatd refused it as ambiguous).
        #expect(words == ["BOBB-2345", "ops", "0b", "0c", "0d", "0e"])
        // Where only peers are taken, the group does not matter.
        let bob = PeerInfo(id: "B", keyTag: "BOBB-2345", name: "bob", presence: .online)
        #expect(
            PeerCompletion.candidates(
                [bob], groups: [GroupInfo(id: "0b", name: "Bob", members: [bob], version: 1)],
                kind: .peers
            ).map(\.word) == ["bob"])
    }

    /// Found by QA: a group a member named like a peer's key tag or another group's id was
    /// offered by its name, which lanchatd reads as that peer or group: its id is offered.
    @Test func aGroupNamedLikeAnIdentifierIsOfferedByItsId() {
        let words = Self.wordsWithBob(groups: [
            ("pnf3-fe3y", "0a"), (String(repeating: "b6", count: 16), "0b"),
            (String(repeating: "K", count: 52), "0c"), ("ops-2345", "0d"),
        ])
        #expect(words == ["bob", "0a", "0b", "0c", "ops-2345"])
    }
}
