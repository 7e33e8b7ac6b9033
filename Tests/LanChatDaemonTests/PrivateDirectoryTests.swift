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
}
