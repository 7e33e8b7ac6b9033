import ArgumentParser
import LanChatControl

/// `lanchat remove PEER [--purge]` → `remove`.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Forget PEER's alias, verification and contact status; --purge also deletes "
            + "the conversation.")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peers)
    var peer: String

    @Flag(
        name: .long,
        help: "Also delete the conversation (messages still queued for PEER still go out).")
    var purge = false

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        let context = global.makeContext()
        let result = try await context.client.remove(
            RemoveParams(peer: peer, purge: purge ? true : nil))
        try context.show(result) { result in
            "Removed \(ContactsView.label(result.peer)) from contacts"
                + (purge ? " and deleted the conversation.\n" : ".\n")
        }
    }
}
