import ArgumentParser
import LanChatControl

/// `lanchat search TEXT… [--peer PEER] [--limit N]` → `search`.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search every message, newest first.",
        discussion: """
            The words are joined by one space. Every word must match, case- and \
            accent-insensitively; 'dep*' matches words starting with dep, and "a phrase" \
            (quoted for the shell as well) matches the words in a row. A query the daemon \
            cannot read exits 65.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("What to look for.", valueName: "text"))
    var words: [String]

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only the conversation with this peer, or this group (see PEER in lanchat --help).",
            valueName: "peer"),
        completion: .peers)
    var peer: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Hits to show, 1 to 1000 (default 50).", valueName: "n"))
    var limit: Int?

    func validate() throws {
        if let limit, !(1...1000).contains(limit) {
            throw ValidationError("--limit must be between 1 and 1000")
        }
        if words.allSatisfy({ $0.allSatisfy(\.isWhitespace) }) {
            throw ValidationError("give the text to search for")
        }
    }

    func run() async throws {
        let undecodable = CLIEnvironment.current.undecodableArguments
        try undecodable.check(words, as: "search text")
        try undecodable.check([peer], as: "PEER")
        let context = global.makeContext()
        let text = words.joined(separator: " ")
        let result = try await context.client.search(
            SearchParams(text: text, peer: peer, limit: limit))
        if context.json {
            try context.show(result) { _ in "" }
            return
        }
        let peers = await PeerDirectory.names(for: result.messages, client: context.client)
        let groups = await PeerDirectory.groups(for: result.messages, client: context.client)
        context.out(
            SearchView.render(
                result, query: text, peers: peers, groups: groups, now: context.now,
                zone: context.zone, style: context.style))
    }
}
