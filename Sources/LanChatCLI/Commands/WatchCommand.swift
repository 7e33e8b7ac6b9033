import ArgumentParser
import LanChatControl

/// `lanchat watch [PEER] [--since CURSOR]` → `watch`, streamed by `WatchFollower`.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print events as they happen, one a line, until interrupted.",
        discussion: """
            Each line is written as soon as the event arrives. With --json each line is one \
            event object; its cursor, given to --since, replays every event after it before \
            going live, with no gap and no repeat. When lanchatd restarts, watch reconnects and \
            resumes after the last event it printed. Ctrl-C or SIGTERM ends it with exit 0; output \
            that cannot be written (a full disk) ends it with exit 74, naming the cursor to \
            resume from. A \
            cursor older than the oldest event the log keeps exits 65, and the error names that \
            oldest one.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "Only events about this peer, or this group (see PEER in lanchat --help).",
            valueName: "peer"),
        completion: .peers)
    var peer: String?

    // The next word whatever it looks like: `--since -1` is a cursor that is wrong, said so
    // (65), not a missing value (found by QA: `--since=-1` and `--since -1` differed).
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Replay the events after this cursor first (from an earlier --json line).",
            valueName: "cursor"))
    var since: String?

    func run() async throws {
        let undecodable = CLIEnvironment.current.undecodableArguments
        try undecodable.check([peer], as: "PEER")
        try undecodable.check([since], as: "cursor")
        let context = global.makeContext()
        if context.environment.handlesSignals {
            InterruptExit.install()
        }
        try await WatchFollower(context: context, peer: peer, since: since).run()
    }
}
