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

    /// One `read` answer carries at most `PageBudget.maxTextBytes` of text; while it says
    /// there is more, the next is asked for, each printed as it comes (with --json, one
    /// object with every message).
    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        let context = global.makeContext()
        var all = ReadResult(messages: [])
        var first = true
        do {
            while first || all.more {
                let result = try await context.client.read(ReadParams(peer: peer))
                all.messages += result.messages
                // An answer that says "more" with nothing in it would never end.
                all.more = result.more && !result.messages.isEmpty
                if !context.json && (first || !result.messages.isEmpty) {
                    await print(result, context: context)
                }
                first = false
            }
        } catch {
            // What earlier answers marked read is still shown before the error.
            if context.json && !all.messages.isEmpty { try context.show(all) { _ in "" } }
            throw error
        }
        if context.json {
            try context.show(all) { _ in "" }
        }
    }

    /// The messages are read now: whatever happens next, they must be printed.
    private func print(_ result: ReadResult, context: CommandContext) async {
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
