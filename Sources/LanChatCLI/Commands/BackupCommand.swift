import ArgumentParser
import Glibc
import LanChatControl

/// `lanchat backup PATH` → `backup`. The daemon writes the copy (it owns the store); the CLI
/// only makes the path absolute, since the daemon's working directory is not the user's.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the message store to a new file while lanchatd runs.",
        discussion: """
            The copy is one consistent snapshot made through SQLite's online backup, a single \
            file of mode 0600; an existing PATH is refused, never overwritten. To restore it, \
            stop lanchatd, copy it to lanchat.sqlite3 in the data directory and remove \
            lanchat.sqlite3-wal and lanchat.sqlite3-shm beside it. The identity key is not in the copy: \
            back up identity.key separately. See lanchat(1).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp(
            "The file to create; relative to the current directory.", valueName: "path"),
        completion: .file())
    var path: String

    func run() async throws {
        // Decoded, it would name another file: U+FFFD where the byte was (found by QA).
        try CLIEnvironment.current.undecodableArguments.check(
            [path], as: "PATH", outcome: "no backup was made")
        guard !path.isEmpty else {
            throw ControlError.invalidParams("the backup path is empty; give the file to create")
        }
        let context = global.makeContext()
        let result = try await context.client.backup(BackupParams(path: try Self.absolute(path)))
        try context.show(result) { result in
            "Backed up \(result.messages) messages (\(result.bytes) bytes) to \(result.path)\n"
        }
    }

    static func absolute(_ path: String) throws(ControlError) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else {
            throw .badInput("cannot resolve \(path): the current directory is not readable")
        }
        let directory = String(
            decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return directory == "/" ? "/" + relative : directory + "/" + relative
    }
}
