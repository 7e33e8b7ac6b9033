import ArgumentParser
import Testing

@testable import LanChatCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `--help` and `man/lanchat.1` describe the same command line: every command and every
/// option the parser accepts is documented in the man page, and every exit code `--help`
/// lists is in its EXIT STATUS section.
@Suite struct ManPageTests {
    static let manPage: String? = {
        // This file is Tests/LanChatCLITests/ManPageTests.swift; the page is man/lanchat.1.
        let file = #filePath
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 3 else { return nil }
        let root = parts.dropLast(3).joined(separator: "/")
        return LinkageTests.readFile(root + "/man/lanchat.1").map {
            String(decoding: $0, as: UTF8.self)
        }
    }()

    static let commands: [any ParsableCommand.Type] = LanChatCommand.configuration.subcommands

    @Test func everyCommandHasAnEntry() throws {
        let page = try #require(Self.manPage)
        for command in Self.commands {
            let name = command.configuration.commandName ?? ""
            #expect(page.contains(".It Cm \(name)"), "man page lacks command \(name)")
        }
    }

    @Test func everyOptionOfEveryCommandIsDocumented() throws {
        let page = try #require(Self.manPage)
        var checked: Set<String> = []
        for command in [LanChatCommand.self] + Self.commands {
            let help = command.helpMessage(columns: 1000)
            for match in help.matches(of: /(?:^|[\s\[,])(--?[a-z][a-z-]*)/) {
                let option = String(match.1)
                checked.insert(option)
                // mdoc spells --wait-read as "Fl -wait-read" and -q as "Fl q".
                let spelled = "Fl " + option.dropFirst()
                #expect(page.contains(spelled), "man page lacks \(option) of \(command)")
            }
        }
        // Not vacuous: the globals, --help, --version and the commands' own options.
        #expect(
            checked.isSuperset(of: [
                "--socket", "--json", "--color", "--wait-read", "-q", "--limit",
            ]))
    }

    @Test func exitCodesInHelpAreInTheManPage() throws {
        let page = try #require(Self.manPage)
        let discussion = LanChatCommand.configuration.discussion
        let codes = discussion.matches(of: /(\d+) [a-z-]/).map { String($0.1) }
        #expect(codes.count >= 10)
        for code in codes {
            #expect(page.contains(".It \(code)\n"), "EXIT STATUS lacks \(code)")
        }
    }
}
