import ArgumentParser
import LanChatControl

/// `lanchat presence available|away|busy [--text TEXT]` → `presence`.
struct PresenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence",
        abstract: "Set your presence and status text, announced over mDNS and to connected peers.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The presence to announce.", valueName: "presence"))
    var presence: PresenceChoice

    // The next word whatever it looks like: `--text -busy-` is a status text (found by QA:
    // "Missing value"), as `--text=-busy-` was.
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Status text, at most 128 bytes; \"\" clears it. Without --text the current text is kept.",
            valueName: "text"))
    var text: String?

    static let maxTextBytes = 128

    /// Too long a text is bad input (65), not a usage error (64), so it is checked here.
    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check(
            [text], as: "--text", outcome: "nothing was changed")
        if let text, text.utf8.count > Self.maxTextBytes {
            throw ControlError.badInput(
                "the status text is \(text.utf8.count) bytes; the limit is \(Self.maxTextBytes) bytes"
            )
        }
        if let text, text.containsNUL {
            throw ControlError.badInput("the status text contains U+0000 (NUL)")
        }
        if let text, !text.isEmpty, text.isBlankText {
            throw ControlError.badInput(
                "the status text is only white space or invisible characters; --text \"\" "
                    + "clears it")
        }
        let context = global.makeContext()
        let params = PresenceParams(status: presence.availability, text: text)
        let result = try await context.client.presence(params)
        try context.show(result) { StatusView.presenceChanged($0, style: context.style) }
    }
}

/// The presence values the command line accepts.
enum PresenceChoice: String, CaseIterable, ExpressibleByArgument {
    case available, away, busy

    var availability: Availability {
        switch self {
        case .available: .available
        case .away: .away
        case .busy: .busy
        }
    }
}
