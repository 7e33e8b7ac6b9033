import ArgumentParser
import LanChatControl

/// `lanchat alias PEER NAME` · `lanchat alias PEER --clear` → `alias`.
struct AliasCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alias",
        abstract: "Give PEER a local name (it resolves PEER arguments), or clear it.")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peersOnly)
    var peer: String

    @Argument(help: ArgumentHelp("The alias.", valueName: "name"))
    var name: String?

    @Flag(name: .long, help: "Remove the alias.")
    var clear = false

    func validate() throws {
        guard (name == nil) == clear else {
            throw ValidationError("give either NAME or --clear")
        }
    }

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer, name], as: "PEER or NAME")
        let context = global.makeContext()
        let result = try await context.client.alias(
            AliasParams(peer: peer, name: name, clear: clear ? true : nil))
        try context.show(result) { ContactsView.aliasChanged($0.peer) }
    }
}
