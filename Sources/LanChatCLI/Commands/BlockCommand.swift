import ArgumentParser
import LanChatControl

/// `lanchat block PEER` → `block`.
struct BlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block",
        abstract: "Block PEER")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peers)
    var peer: String

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        let context = global.makeContext()
        let result = try await context.client.block(PeerParams(peer: peer))
        try context.show(result) {
            "\(ContactsView.label($0.peer))  its key is never dialled, its sessions are refused and nothing from it is stored; a pending message request from it is dropped.:is blocked.\n"
        }
    }
}
