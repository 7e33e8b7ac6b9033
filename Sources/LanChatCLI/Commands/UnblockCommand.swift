import ArgumentParser
import LanChatControl

/// `lanchat unblock PEER` → `unblock`.
struct UnblockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock",
        abstract: "Unblock PEER; what is queued for it is delivered once it is reached.")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peers)
    var peer: String

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        let context = global.makeContext()
        let result = try await context.client.unblock(PeerParams(peer: peer))
        try context.show(result) { "\(ContactsView.label($0.peer)) is no longer blocked.\n" }
    }
}
