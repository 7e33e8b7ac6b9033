import Foundation
import LanChatControl
import Testing

@testable import LanChatDaemon

/// Socket activation: the socket systemd passes is reported by its own path (`status`, the
/// ready line), not by a `--socket` that names nothing then.
@Suite struct ActivatedSocketTests {
    @Test func aPassedSocketIsReportedByThePathItIsBoundTo() throws {
        let directory = try TestRoot()
        defer { directory.remove() }
        let path = directory.path + "/passed.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        let address = try #require(UnixSocketAddress(path: path))
        #expect(address.withSockaddr { bind(fd, $0, $1) } == 0)
        #expect(listen(fd, 4) == 0)
        #expect(ActivatedSocket(descriptor: fd).path == path)

        let unnamed = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(unnamed) }
        #expect(ActivatedSocket(descriptor: unnamed).path == nil)
    }
}
