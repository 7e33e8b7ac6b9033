import ArgumentParser
import LanChatControl

/// `lanchat who [QUERY] [--all]` → `who`.
struct WhoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "who",
        abstract: "List peers online: name (alias), key tag, presence, status text, trust, last "
            + "seen and address.")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "Show only peers whose name, alias, key tag, id, host or address (host:port) contains this "
                + "(case-insensitive).",
            valueName: "query"))
    var query: String?

    @Flag(name: .long, help: "Also list offline and discovering peers.")
    var all = false

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([query], as: "QUERY")
        let context = global.makeContext()
        let params = WhoParams(query: query, all: all ? true : nil)
        let result = try await context.client.who(params)
        // With no one to list, the hint says how the daemon finds peers: one more call.
        let avahi =
            result.peers.isEmpty && query == nil && !context.json
            ? try? await context.client.status().avahi : nil
        try context.show(result) {
            WhoView.render(
                $0, query: query, all: all, now: context.now, zone: context.zone,
                style: context.style, width: context.environment.outputWidth, avahi: avahi)
        }
    }
}
