import Foundation
import Testing

@testable import LanChatDaemon

/// The data directory's checks: created 0700, tightened when wider, and a symbolic link to a
/// directory taken as that directory (QA: refused as "not a directory").
@Suite struct PrivateDirectoryTests {
    @Test func aLinkToADirectoryIsThatDirectory() throws {
        let root = try TestRoot()
        defer { root.remove() }
        let real = root.path + "/real"
        #expect(mkdir(real, 0o755) == 0)
        let link = root.path + "/data"
        #expect(symlink(real, link) == 0)
        try PrivateDirectory.ensure(link, purpose: "data directory")
        var info = stat()
        #expect(stat(real, &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test func aFileOrADanglingLinkIsRefused() throws {
        let root = try TestRoot()
        defer { root.remove() }
        let file = root.path + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: DaemonError.self) {
            try PrivateDirectory.ensure(file, purpose: "data directory")
        }
        let dangling = root.path + "/dangling"
        #expect(symlink(root.path + "/gone", dangling) == 0)
        #expect(throws: DaemonError.self) {
            try PrivateDirectory.ensure(dangling, purpose: "data directory")
        }
    }

    /// Another user who may write the directory holding ours, or who made a link at its
    /// path, could swap it for theirs (found by QA: the daemon then made itself a new
    /// identity in an empty one): refused, saying where and the fix; a sticky parent, and
    /// our own group's write (a umask of 002), are fine.
    @Test func aDirectoryOthersCouldReplaceIsRefused() throws {
        let root = try TestRoot()
        defer { root.remove() }
        let parent = root.path + "/share"
        #expect(mkdir(parent, 0o755) == 0)
        let data = parent + "/lanchat"
        try PrivateDirectory.ensure(data, purpose: "data directory")
        for mode: mode_t in [0o777, 0o757] {
            #expect(chmod(parent, mode) == 0)
            do {
                try PrivateDirectory.ensure(data, purpose: "data directory")
                Issue.record("accepted in a parent of mode \(String(mode, radix: 8))")
            } catch {
                #expect(error.description.contains("chmod go-w \(parent)"), "\(error)")
            }
        }
        #expect(chmod(parent, 0o1777) == 0)
        try PrivateDirectory.ensure(data, purpose: "data directory")
        #expect(chmod(parent, 0o775) == 0 && chown(parent, getuid(), getgid()) == 0)
        try PrivateDirectory.ensure(data, purpose: "data directory")
        // Giving files away needs root.
        guard getuid() == 0 else { return }
        #expect(chmod(parent, 0o755) == 0 && chown(parent, 65534, 65534) == 0)
        #expect(throws: DaemonError.self) {
            try PrivateDirectory.ensure(data, purpose: "data directory")
        }
        #expect(chown(parent, 0, 0) == 0)
        let link = root.path + "/theirs"
        #expect(symlink(data, link) == 0 && lchown(link, 65534, 65534) == 0)
        do {
            try PrivateDirectory.ensureForSocket(link)
            Issue.record("a link another user made was followed")
        } catch {
            #expect(error.description.contains("symbolic link made by uid 65534"), "\(error)")
        }
    }
}
