import ArgumentParser
import LanChatControl

/// `lanchat block PEER` → `block`.
struct BlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block",
        abstract: "Block PEER: never dialled, its sessions refused, nothing from it stored.")

    @OptionGroup var global: GlobalOptions

    @OptionGroup var target: PeerArgument

    func run() async throws {
        let peer = try target.checked()
        let context = global.makeContext()
        let result = try await context.client.block(PeerParams(peer: peer))
        try context.show(result) {
            "\(ContactsView.label($0.peer)) is blocked: its key is never dialled, its sessions are "
                + "refused and nothing from it is stored; a pending message request from it is "
                + "dropped.\n"
        }
    }
}
