import ArgumentParser
import LanChatControl

/// `lanchat archive PEER` → `archive`.
struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract:
            "Hide the conversation with PEER (or GROUP) from the inbox until a new message arrives."
    )

    @OptionGroup var global: GlobalOptions

    @OptionGroup var target: PeerArgument

    func run() async throws {
        let peer = try target.checked()
        let context = global.makeContext()
        let result = try await context.client.archive(ArchiveParams(peer: peer))
        try context.show(result) { result in
            "Archived the conversation with \(truncated(GroupText.conversationLabel(result.conversation), to: 80)); "
                + "'lanchat inbox --archived' lists it.\n"
        }
    }
}
