import Foundation
import LanChatCore
import Testing

@testable import LanChatDaemon

/// `<data dir>/presence` as a user may leave it after editing it by hand (found by QA: a
/// status text over 128 bytes cut the node off from every peer).
@Suite struct PresenceFileTests {
    static func loaded(_ contents: String) throws -> PresenceFile.Loaded? {
        let root = try TestRoot()
        defer { root.remove() }
        let file = PresenceFile(dataDirectory: root.path)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file.path))
        return try file.load().get()
    }

    @Test func whatTheDaemonWroteComesBackAsItWas() throws {
        let root = try TestRoot()
        defer { root.remove() }
        let file = PresenceFile(dataDirectory: root.path)
        #expect(try file.load().get() == nil)
        let saved = PresenceFile.Saved(status: .busy, statusText: "in a meeting\nuntil 3")
        try file.save(saved)
        #expect(try file.load().get() == PresenceFile.Loaded(saved: saved, mended: nil))
    }

    @Test func aFileEditedByHandIsUsedWithinTheLimits() throws {
        let edited = try #require(try Self.loaded("available\nat lunch\n"))
        #expect(edited.saved == PresenceFile.Saved(status: .available, statusText: "at lunch"))
        #expect(edited.mended == nil)
        let crlf = try #require(try Self.loaded(" away \r\nback soon\r\n"))
        #expect(crlf.saved == PresenceFile.Saved(status: .away, statusText: "back soon"))

        let long = try #require(try Self.loaded("away\n" + String(repeating: "é", count: 100)))
        #expect(long.saved.statusText == String(repeating: "é", count: 64))
        #expect(long.saved.statusText.utf8.count == 128)
        #expect(long.mended?.hasSuffix("status text cut to 128 bytes") == true)

        let nul = try #require(try Self.loaded("busy\na\0b"))
        #expect(nul.saved.statusText == "ab")
        #expect(nul.mended?.contains("NUL removed") == true)
    }

    /// Bytes that are not UTF-8 are shown as U+FFFD, and the log says so.
    @Test func bytesThatAreNotUTF8AreReplacedAndSaid() throws {
        let root = try TestRoot()
        defer { root.remove() }
        let file = PresenceFile(dataDirectory: root.path)
        try Data(Array("away\nlunch ".utf8) + [0xFF, 0xFE]).write(
            to: URL(fileURLWithPath: file.path))
        let loaded = try #require(try file.load().get())
        #expect(loaded.saved.statusText == "lunch \u{FFFD}\u{FFFD}")
        #expect(loaded.mended?.contains("not UTF-8") == true)
    }

    /// A FIFO, a directory or a link in its place is refused at once, never waited on (QA: a
    /// FIFO held the start, and a SIGHUP's reload with every signal after it).
    @Test func whatIsNotARegularFileIsRefusedAtOnce() throws {
        let root = try TestRoot()
        defer { root.remove() }
        let file = PresenceFile(dataDirectory: root.path)
        #expect(mkfifo(file.path, 0o600) == 0)
        #expect(throws: PresenceFileError.self) { try file.load().get() }
        #expect(unlink(file.path) == 0)
        #expect(mkdir(file.path, 0o700) == 0)
        #expect(throws: PresenceFileError.self) { try file.load().get() }
        #expect(rmdir(file.path) == 0)
        let elsewhere = root.path + "/elsewhere"
        try Data("away\n".utf8).write(to: URL(fileURLWithPath: elsewhere))
        #expect(symlink(elsewhere, file.path) == 0)
        do {
            _ = try file.load().get()
            Issue.record("a symbolic link was read")
        } catch {
            #expect(error.description.contains("symbolic link"))
        }
    }

    @Test func aFileThatIsNotOneIsRefused() throws {
        #expect(throws: PresenceFileError.self) { try Self.loaded("sleeping\n") }
        #expect(throws: PresenceFileError.self) {
            try Self.loaded(String(repeating: "x", count: 5000))
        }
    }
}
