import ArgumentParser
import LanChatControl

/// `lanchat unarchive PEER` → `unarchive`.
struct UnarchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unarchive",
        abstract: "Show the conversation with PEER (or GROUP) in the inbox again.")

    @OptionGroup var global: GlobalOptions

    @OptionGroup var target: PeerOrGroupArgument

    func run() async throws {
        let peer = try target.checked()
        let context = global.makeContext()
        let result = try await context.client.unarchive(ArchiveParams(peer: peer))
        try context.show(result) { result in
            let label = truncated(GroupText.conversationLabel(result.conversation), to: 80)
            // Found by QA: "is back in the inbox" of one that never left it.
            if result.changed == false {
                return "The conversation with \(label) was not archived; it is in the inbox.\n"
            }
            return "The conversation with \(label) is back in the inbox.\n"
        }
    }
}
