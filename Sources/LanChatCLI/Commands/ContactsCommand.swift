import ArgumentParser
import LanChatControl

/// `lanchat contacts` → `contacts`.
struct ContactsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contacts",
        abstract: "List contacts, blocked peers and pending message requests.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = global.makeContext()
        let result = try await context.client.contacts()
        try context.show(result) {
            ContactsView.render($0, now: context.now, zone: context.zone, style: context.style)
        }
    }
}
