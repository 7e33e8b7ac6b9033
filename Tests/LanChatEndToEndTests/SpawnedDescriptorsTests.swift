import Glibc
import LanChatTestSupport
import Testing

/// Programs the tests spawn with `posix_spawn` get none of the test process's descriptors:
/// the in-process daemons' sockets are not close-on-exec, and a tmux server holding one kept
/// another test's port busy ("Address already in use" on its restart).
@Suite struct SpawnedDescriptorsTests {
    @Test func aSpawnedProgramHoldsNoneOfOurSockets() async throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(socket >= 0)
        // A free number far above what the child opens for itself. Never dup2 to a fixed
        // number: in this process it may be another test's live socket, which dup2 would
        // close under it.
        let high = fcntl(socket, F_DUPFD, Int32(400))
        #expect(high >= 400)
        defer {
            close(high)
            close(socket)
        }
        let child = try #require(RunningChild(arguments: ["/bin/ls", "/proc/self/fd"]))
        var open: [String] = []
        while let line = await child.readLine() { open.append(line) }
        #expect(!open.isEmpty)
        #expect(!open.contains("\(high)"), "\(open)")
        _ = await child.exitStatus()
    }
}
