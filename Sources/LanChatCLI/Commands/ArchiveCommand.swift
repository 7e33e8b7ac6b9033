import ArgumentParser
import LanChatClient
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
        let before = context.json ? nil : await Self.archivedConversations(context.client)
        let result = try await context.client.archive(ArchiveParams(peer: peer))
        try context.show(result) { result in
            let label = truncated(GroupText.conversationLabel(result.conversation), to: 80)
            // Said as it is (found by QA: the same confirmation twice).
            if before?.contains(Self.key(result.conversation)) == true {
                return "The conversation with \(label) was archived already; "
                    + "'lanchat inbox --archived' lists it.\n"
            }
            return "Archived the conversation with \(label); 'lanchat inbox --archived' lists it.\n"
        }
    }

    /// The conversations archived now, by `key`; nil when the daemon cannot say. Read before
    /// an `archive` or `unarchive`, so its confirmation can say whether it changed anything.
    static func archivedConversations(_ client: ControlClient) async -> Set<String>? {
        guard let result = try? await client.inbox(InboxParams(archived: true)) else {
            return nil
        }
        return Set(result.conversations.map(key))
    }

    /// A conversation's group id, or its peer's id.
    static func key(_ conversation: ConversationInfo) -> String {
        conversation.group?.id ?? conversation.peer?.id ?? ""
    }
}
