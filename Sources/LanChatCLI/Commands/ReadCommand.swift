import ArgumentParser
import LanChatControl

/// `lanchat read [PEER] [--from ID] [--through ID]` → `read`.
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

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only the unread messages from this message id on (needs PEER).", valueName: "id"))
    var from: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only the unread messages up to this message id, included (needs PEER); what "
                + "came after it stays unread.",
            valueName: "id"))
    var through: String?

    func validate() throws {
        // Ids place messages in one conversation only.
        if peer == nil && (from != nil || through != nil) {
            throw ValidationError("--from and --through need PEER (a peer or group)")
        }
    }

    /// One `read` answer carries at most 2 MiB of text; while it says there is more, the
    /// next is asked for, and everything is printed once, as one answer (found by QA: printed
    /// answer by answer, a conversation's header came again for each).
    func run() async throws {
        let undecodable = CLIEnvironment.current.undecodableArguments
        try undecodable.check([peer], as: "PEER")
        try undecodable.check([from, through], as: "message id")
        let context = global.makeContext()
        var all = ReadResult(messages: [])
        var first = true
        do {
            while first || all.more {
                let result = try await context.client.read(
                    ReadParams(peer: peer, from: from, through: through))
                all.messages += result.messages
                // An answer that says "more" with nothing in it would never end.
                all.more = result.more && !result.messages.isEmpty
                first = false
            }
        } catch {
            // What earlier answers marked read is still shown before the error.
            if !all.messages.isEmpty { try await show(all, context: context) }
            throw error
        }
        try await show(all, context: context)
    }

    /// The messages are read now: whatever happens next, they must be printed.
    private func show(_ all: ReadResult, context: CommandContext) async throws {
        let result = ReadResult(messages: Self.byConversation(all.messages), more: false)
        if context.json {
            try context.show(result) { _ in "" }
        } else {
            await print(result, context: context)
        }
    }

    /// Each conversation's messages together, conversations in the order they first came,
    /// as one answer has them.
    static func byConversation(_ messages: [MessageInfo]) -> [MessageInfo] {
        var order: [String] = []
        var groups: [String: [MessageInfo]] = [:]
        for message in messages {
            let key = message.group.map { "g" + $0 } ?? "p" + message.peer
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(message)
        }
        return order.flatMap { groups[$0] ?? [] }
    }

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
