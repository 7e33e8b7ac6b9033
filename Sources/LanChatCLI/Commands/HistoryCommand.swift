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

    @Argument(help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"))
    var peer: String

    @Option(
        name: .long,
        help: ArgumentHelp("Messages per page, 1 to 1000 (default 50).", valueName: "n"))
    var limit: Int?

    @Option(
        name: .long,
        help: ArgumentHelp("Only messages older than this message id.", valueName: "id"))
    var before: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Only messages newer than this message id.", valueName: "id"))
    var after: String?

    func validate() throws {
        if let limit, !(1...1000).contains(limit) {
            throw ValidationError("--limit must be between 1 and 1000")
        }
    }

    func run() async throws {
        let context = global.makeContext()
        let params = HistoryParams(peer: peer, limit: limit, before: before, after: after)
        let result = try await context.client.call(Methods.History.self, params)
        try context.show(result) {
            HistoryView.render($0, now: context.now, zone: context.zone, style: context.style)
        }
    }
}

/// `lanchat retry [ID|PEER]` → `retry`.
struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Queue failed messages again: one message by id, those to one peer, or all. "
            + "Prints the ids of the messages queued again, one a line.")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "A message id or a peer; without it, every failed message.", valueName: "id|peer"))
    var target: String?

    func run() async throws {
        let context = global.makeContext()
        let result = try await context.client.call(Methods.Retry.self, RetryParams(target: target))
        if !context.json && result.messages.isEmpty {
            context.err("No failed messages to retry.\n")
            return
        }
        try context.show(result) { result in
            result.messages.map { $0.id + "\n" }.joined()
        }
    }
}
