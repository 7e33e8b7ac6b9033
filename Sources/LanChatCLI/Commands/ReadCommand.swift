import ArgumentParser
import LanChatControl

/// `lanchat read [PEER]` → `read`.
struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print the unread messages, of PEER or of every conversation, and mark them "
            + "read (which sends read receipts).")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peers)
    var peer: String?

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        let context = global.makeContext()
        let result = try await context.client.read(ReadParams(peer: peer))
        if context.json {
            try context.show(result) { _ in "" }
            return
        }
        // The messages are read now: whatever happens next, they must be printed.
        let peers = await PeerDirectory.names(for: result.messages, client: context.client)
        let groups = await PeerDirectory.groups(for: result.messages, client: context.client)
        var readGroup: GroupInfo?
        if result.messages.isEmpty, let peer {
            readGroup = await PeerDirectory.group(named: peer, client: context.client)
        }
        context.out(
            ReadView.render(
                result, peers: peers, groups: groups, peerArgument: peer, readGroup: readGroup,
                now: context.now, zone: context.zone, style: context.style))
    }
}
