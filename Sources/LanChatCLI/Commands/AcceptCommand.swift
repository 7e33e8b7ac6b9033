import ArgumentParser
import LanChatControl

/// `lanchat accept PEER` → `accept`.
struct AcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept PEER's message request, or a GROUP request.")

    @OptionGroup var global: GlobalOptions

    @OptionGroup var target: PeerOrGroupArgument

    func run() async throws {
        let peer = try target.checked()
        let context = global.makeContext()
        let result = try await context.client.accept(PeerParams(peer: peer))
        try context.show(result) {
            if let group = $0.group {
                return
                    "#\(truncated(group.name, to: 64)): accepted; its conversation is in the inbox ('lanchat read #\(truncated(group.name, to: 64))').\n"
            }
            return
                "\(ContactsView.label($0.peer)): a contact now; its messages are in the inbox, unread ('lanchat read').\n"
        }
    }
}
