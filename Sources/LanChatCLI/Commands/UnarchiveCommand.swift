import ArgumentParser
import LanChatControl

/// `lanchat unarchive PEER` → `unarchive`.
struct UnarchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unarchive",
        abstract: "Show the conversation with PEER in the inbox again.")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peers)
    var peer: String

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        let context = global.makeContext()
        let result = try await context.client.unarchive(ArchiveParams(peer: peer))
        try context.show(result) { result in
            "The conversation with \(truncated(PeerText.nameWithAlias(result.conversation.peer), to: 80)) "
                + "is back in the inbox.\n"
        }
    }
}
