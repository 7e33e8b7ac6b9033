import ArgumentParser
import LanChatControl

/// `lanchat retry [ID|PEER]` → `retry`.
struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Queue failed messages again: one message by id, those to one peer, or all. "
            + "Prints the ids of the messages queued again, one a line.")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "A message id or a peer; without it, every failed message.", valueName: "id|peer"),
        completion: .peersOnly)
    var target: String?

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([target], as: "ID or PEER")
        let context = global.makeContext()
        let result = try await context.client.retry(RetryParams(target: target))
        if !context.json && result.messages.isEmpty {
            context.err("No failed messages to retry.\n")
            return
        }
        try context.show(result) { result in
            result.messages.map { $0.id + "\n" }.joined()
        }
    }
}
