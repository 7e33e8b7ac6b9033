import ArgumentParser
import LanChatControl

/// `lanchat history PEER [--limit N] [--before ID] [--after ID]` → `history`.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show a page of the conversation with PEER, oldest first. Marks nothing read.",
        discussion: """
            Own messages carry their status: … queued, ✓ sent, ✓✓ delivered, ✓✓ read, \
            ✗ failed: reason.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peers)
    var peer: String

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Messages per page, 1 to 1000 (default 50).", valueName: "n"))
    var limit: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only messages older than this message id (not with --after).", valueName: "id"))
    var before: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only messages newer than this message id (not with --before).", valueName: "id"))
    var after: String?

    func validate() throws {
        if let limit, !(1...1000).contains(limit) {
            throw ValidationError("--limit must be between 1 and 1000")
        }
        // A page goes one way from its anchor: back (--before) or forward (--after).
        if before != nil && after != nil {
            throw ValidationError(
                "give --before or --after, not both: a page goes back from one message or "
                    + "forward from one")
        }
    }

    func run() async throws {
        let undecodable = CLIEnvironment.current.undecodableArguments
        try undecodable.check([peer], as: "PEER")
        try undecodable.check([before, after], as: "message id")
        let context = global.makeContext()
        let params = HistoryParams(peer: peer, limit: limit, before: before, after: after)
        let result = try await context.client.history(params)
        let former =
            context.json
            ? [:]
            : await PeerDirectory.formerMembers(
                in: result.messages,
                members: result.group.map { [$0.id: $0] } ?? [:], client: context.client)
        try context.show(result) {
            HistoryView.render(
                $0, paged: before != nil || after != nil, peers: former, now: context.now,
                zone: context.zone, style: context.style)
        }
    }
}
