import ArgumentParser
import LanChatControl

/// `lanchat unblock PEER` → `unblock`.
struct UnblockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock",
        abstract: "Unblock PEER; what is queued for it is delivered once it is reached.")

    @OptionGroup var global: GlobalOptions

    @OptionGroup var target: PeerArgument

    func run() async throws {
        let peer = try target.checked()
        let context = global.makeContext()
        let result = try await context.client.unblock(PeerParams(peer: peer))
        try context.show(result) { "\(ContactsView.label($0.peer)) is no longer blocked.\n" }
    }
}
