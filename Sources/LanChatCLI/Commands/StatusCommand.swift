import ArgumentParser
import LanChatControl

/// `lanchat status` → `status`.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show this node: name, id, key tag, presence, daemon and API version, uptime, "
            + "listening addresses, Avahi state, peers online, messages queued and unread.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = global.makeContext()
        let result = try await context.client.status()
        try context.show(result) { StatusView.render($0, style: context.style) }
    }
}
