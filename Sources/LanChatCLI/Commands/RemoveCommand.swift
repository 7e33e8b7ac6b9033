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
        completion: .peersOnly)
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
            // What remove does, said of any peer (found by QA: "Removed … from contacts" of
            // one that never was a contact).
            "Forgot the alias, verification and contact status of "
                + ContactsView.label(result.peer)
                + (purge ? " and deleted the conversation" : "")
                + Self.keptText(result.kept ?? 0, peer: result.peer) + ".\n"
        }
    }

    /// Messages `--purge` kept: those still on their way to the peer keep their place in its
    /// stream (lanchat(1)), so the conversation shows them. Said, not left for `inbox` to
    /// reveal (QA: "deleted the conversation", and there it was).
    static func keptText(_ count: Int, peer: PeerInfo) -> String {
        guard count > 0 else { return "" }
        let history = "lanchat history \(terminalSafe(peer.keyTag))"
        return count == 1
            ? ", except 1 message still on its way to it, which goes out as before "
                + "(\(history) shows it)"
            : ", except \(count) messages still on their way to it, which go out as before "
                + "(\(history) shows them)"
    }
}
