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

    @OptionGroup var target: PeerOrGroupArgument

    func run() async throws {
        let peer = try target.checked()
        let context = global.makeContext()
        let result = try await context.client.archive(ArchiveParams(peer: peer))
        try context.show(result) { result in
            let label = truncated(GroupText.conversationLabel(result.conversation), to: 80)
            // Said as it is (found by QA: the same confirmation twice).
            if result.changed == false {
                return "The conversation with \(label) was archived already; "
                    + "'lanchat inbox --archived' lists it.\n"
            }
            return "Archived the conversation with \(label); 'lanchat inbox --archived' lists it.\n"
        }
    }
}
