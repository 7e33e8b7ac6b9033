import Foundation
import LanChatTestSupport
import Testing

/// A real terminal for `lanchat chat`: a tmux session on a private tmux server (its own
/// socket name), driven with `send-keys` and read with `capture-pane`, as a user would.
/// `kill()` ends the server and everything in it.
final class TmuxTerminal: Sendable {
    let server: String
    let name = "chat"

    static var available: Bool { FileManager.default.isExecutableFile(atPath: tmuxPath) }
    static let tmuxPath = "/usr/bin/tmux"

    /// Starts `command` (argv) in a `width`×`height` terminal with a UTF-8 locale; when it
    /// ends, the pane shows `EXITED <status>`, then `RESTORED` if the terminal is back in
    /// canonical mode with echo (as the shell had it), and stays.
    init(_ command: [String], width: Int = 100, height: Int = 30) async throws {
        server = "lanchat-test-" + UUID().uuidString.prefix(8)
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let shell =
            "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color \(quoted.joined(separator: " ")); "
            + "echo EXITED $?; s=$(stty -a); case \"$s\" in *' icanon'*' echo '*) "
            + "echo RESTORED;; esac; sleep 120"
        try await run([
            "new-session", "-d", "-s", name, "-x", String(width), "-y", String(height), shell,
        ])
    }

    func keys(_ keys: String...) async throws {
        try await run(["send-keys", "-t", name] + keys)
    }

    /// Literal text (no key names).
    func type(_ text: String) async throws {
        try await run(["send-keys", "-t", name, "-l", text])
    }

    /// Pastes `text` as a terminal does: through a tmux buffer, in bracketed-paste markers
    /// when the program asked for them (mode 2004), line feeds sent as carriage returns.
    func paste(_ text: String) async throws {
        try await run(["set-buffer", "-b", "paste", text])
        try await run(["paste-buffer", "-p", "-d", "-b", "paste", "-t", name])
    }

    /// `paste`, of a file's content (an argument cannot hold a large paste).
    func paste(contentsOf path: String) async throws {
        try await run(["load-buffer", "-b", "paste", path])
        try await run(["paste-buffer", "-p", "-d", "-b", "paste", "-t", name])
    }

    func resize(width: Int, height: Int) async throws {
        try await run(["resize-window", "-t", name, "-x", String(width), "-y", String(height)])
    }

    func screen() async throws -> [String] {
        let text = try await run(["capture-pane", "-p", "-t", name])
        // One row a line, each ending in a newline.
        var rows = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if rows.last == "" { rows.removeLast() }
        return rows
    }

    /// What a terminal test waits for at most. Only a failure waits so long: a full parallel
    /// run starts hundreds of tests at once on two cores, and tests that take milliseconds
    /// alone have taken 12 – 17 s at its start, so a 10 s bound failed on the machine's
    /// minute, not the chat's behaviour (a chat test's "read" not seen, twice).
    static let patience: Duration = .seconds(30)

    /// Waits until the screen satisfies `condition`; the last screen either way.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = TmuxTerminal.patience,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: ([String]) -> Bool
    ) async throws -> [String] {
        var last: [String] = []
        let met = try await pollUntil(timeout: timeout, interval: .milliseconds(50)) {
            last = try await screen()
            return condition(last)
        }
        #expect(
            met, "\(what); the screen:\n\(last.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        return last
    }

    func waitFor(
        showing text: String, timeout: Duration = TmuxTerminal.patience,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await waitFor("shows \(text)", timeout: timeout, sourceLocation: sourceLocation) {
            $0.contains { $0.contains(text) }
        }
    }

    /// Ends the tmux server and everything in it (`defer` cannot await: a blocking call).
    func kill() {
        _ = Self.spawnAndWait([Self.tmuxPath, "-L", server, "kill-server"], output: "/dev/null")
    }

    /// One tmux client run, with posix_spawn and a `waitpid` on a dispatch thread: the
    /// server a client forks inherits Foundation.Process's exit-watching descriptor, which
    /// then never reports the client's end. Output goes through a file.
    @discardableResult
    private func run(_ arguments: [String]) async throws -> String {
        let outPath = NSTemporaryDirectory() + "/\(server)-\(UUID().uuidString.prefix(8)).out"
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let argv = [Self.tmuxPath, "-L", server] + arguments
        let status = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.spawnAndWait(argv, output: outPath))
            }
        }
        guard status == 0 || arguments.first == "kill-server" else {
            throw SandboxError(description: "tmux \(arguments.first ?? "") failed (\(status))")
        }
        return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    private static func spawnAndWait(_ argv: [String], output: String) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The tmux server forked from this client lives for the whole test: it must not
        // hold the in-process daemons' sockets.
        SpawnedDescriptors.closeInherited(&actions)
        var arguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in arguments { free(pointer) } }
        // Every signal at its default: the test process ignores some (SIGHUP, SIGTERM), and
        // a tmux server and its panes that inherit that outlive `kill-server`.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, &attributes, &arguments, environ) == 0 else {
            return -1
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
