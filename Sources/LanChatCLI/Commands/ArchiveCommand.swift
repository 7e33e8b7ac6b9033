import ArgumentParser
import LanChatControl

/// `lanchat archive PEER` → `archive`.
struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Hide the conversation with PEER from the inbox until a new message arrives.")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peers)
    var peer: String

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        let context = global.makeContext()
        let result = try await context.client.archive(ArchiveParams(peer: peer))
        try context.show(result) { result in
            "Archived the conversation with \(truncated(PeerText.nameWithAlias(result.conversation.peer), to: 80)); "
                + "'lanchat inbox --archived' lists it.\n"
        }
    }
}
