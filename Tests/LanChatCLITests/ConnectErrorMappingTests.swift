import LanChatClient
import LanChatControl
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The errno → `ControlError` mapping of a failed connect, tested directly because the tests
/// may run as root, whom file permissions never refuse.
@Suite struct ConnectErrorMappingTests {
    let path = "/run/user/1000/lanchat/lanchatd.sock"

    @Test(arguments: [ENOENT, ECONNREFUSED, ENOTDIR])
    func nothingListeningIsDaemonNotRunning(code: Int32) {
        let error = ConnectErrorMapping.controlError(errno: code, path: path)
        #expect(error.exitCode == 69)
        #expect(error.message.contains(path))
        #expect(error.message.hasSuffix("start it with: systemctl --user start lanchatd"))
    }

    @Test func anotherSocketsHintNamesItsDaemonNotTheUserService() {
        let other = "/srv/chat/lanchatd.sock"
        let hints = DaemonHints.forSocket(other, userServiceSocket: path)
        #expect(hints == .startedElsewhere(socket: other))
        #expect(DaemonHints.forSocket(path, userServiceSocket: path) == .userService)
        let error = ConnectErrorMapping.controlError(errno: ENOENT, path: other, hints: hints)
        #expect(error.exitCode == 69)
        #expect(
            error.message.hasSuffix(
                "start the lanchatd that serves it (lanchatd --socket /srv/chat/lanchatd.sock)"))
        #expect(!error.message.contains("systemctl"))
    }

    /// Found by QA: `--socket /tmp` (a directory) was told to start a lanchatd there, which
    /// lanchatd refuses. A directory or a file that refuses is said to be one.
    @Test func aDirectoryOrAFileIsNotASocket() throws {
        let directory = ConnectErrorMapping.controlError(
            errno: ECONNREFUSED, path: "/tmp", kind: .directory)
        #expect(directory.exitCode == 69)
        #expect(directory.message.hasPrefix("/tmp is a directory, not a socket"))
        #expect(!directory.message.contains("lanchatd --socket"))
        let file = ConnectErrorMapping.controlError(
            errno: ECONNREFUSED, path: "/etc/hostname", kind: .file)
        #expect(file.message.hasPrefix("/etc/hostname is a file, not a socket"))
        // A stale socket file is still "not running", with the start hint.
        let stale = ConnectErrorMapping.controlError(errno: ECONNREFUSED, path: path, kind: .socket)
        #expect(stale.message.hasSuffix("start it with: systemctl --user start lanchatd"))
        // What the mapping reads off the path itself.
        let failure = ConnectErrorMapping.controlError(
            for: .system(errno: ECONNREFUSED), path: "/tmp")
        #expect(failure.message.hasPrefix("/tmp is a directory"))
    }

    @Test(arguments: [EACCES, EPERM])
    func refusedAccessIsPermissionDenied(code: Int32) {
        let error = ConnectErrorMapping.controlError(errno: code, path: path)
        #expect(error.exitCode == 77)
        #expect(error.message.contains(path))
    }

    @Test func otherErrorsAreInternalAndNameTheCause() {
        let error = ConnectErrorMapping.controlError(errno: EMFILE, path: path)
        #expect(error.exitCode == 70)
        #expect(error.message.contains("Too many open files"))
    }

    @Test func tooLongAPathIsAUsageError() {
        let long = "/" + String(repeating: "d", count: 200)
        let error = ConnectErrorMapping.controlError(for: .pathTooLong(byteCount: 201), path: long)
        #expect(error.exitCode == 64)
        #expect(error.message.contains("201 bytes"))
    }
}
