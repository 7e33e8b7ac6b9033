import ArgumentParser
import LanChatControl

/// `lanchat add NAME ID` → `add`.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a contact by its 52-character id before it was ever seen; messages to it "
            + "queue until it appears.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The local name (alias) to give it.", valueName: "name"))
    var name: String

    @Argument(
        help: ArgumentHelp(
            "Its id, as 'lanchat status' shows it on its own machine.", valueName: "id"))
    var id: String

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([name, id], as: "NAME or ID")
        let context = global.makeContext()
        let result = try await context.client.add(AddParams(name: name, id: id))
        try context.show(result) { result in
            // Messages wait only for a peer not reached yet (QA: said of an online one).
            let reach =
                result.peer.presence == .online
                ? "it is online" : "messages to it wait until it is reached"
            return "Added \(ContactsView.label(result.peer)) as a contact; \(reach). Compare "
                + "safety numbers with 'lanchat verify \(terminalSafe(result.peer.keyTag))'.\n"
        }
    }
}
