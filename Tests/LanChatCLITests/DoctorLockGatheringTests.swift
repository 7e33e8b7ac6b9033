import LanChatControl
import Testing

@testable import LanChatCLI

#if canImport(Glibc)
    import Glibc
#endif

/// Who holds the data directory's lock, found on this machine's real kernel: a descriptor
/// holding the same `flock` lanchatd takes, another process holding it, and a listening
/// socket whose file was removed, as a /tmp cleaner removes lanchatd's (found by QA).
@Suite(.timeLimit(.minutes(1))) struct DoctorLockGatheringTests {
    /// A data directory under /tmp, and the path of its lock file.
    func dataDirectory() throws -> (directory: String, lock: String) {
        let directory = try TemporaryDirectory.make()
        return (directory, directory + "/" + DataDirectoryPath.lockFileName)
    }

    /// What lanchatd's `DataDirectoryLock` does: an exclusive `flock`, and its PID in the file.
    func holdLock(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        try #require(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    @Test func aHeldLockNamesItsHolderAndAFreeOneNobody() throws {
        let (directory, lock) = try dataDirectory()
        defer {
            unlink(lock)
            rmdir(directory)
        }
        // No lock file: nobody, and the probe does not create one.
        #expect(DataDirectoryLockProbe.holder(of: lock) == nil)
        #expect(access(lock, F_OK) != 0)
        let fd = try holdLock(lock)
        #expect(DataDirectoryLockProbe.holder(of: lock) == getpid())
        close(fd)
        // Released: the file and the PID in it stay, the lock does not.
        #expect(DataDirectoryLockProbe.holder(of: lock) == nil)
        // The probe took no lock: lanchatd can take it.
        let daemon = open(lock, O_RDWR | O_CLOEXEC)
        defer { close(daemon) }
        #expect(flock(daemon, LOCK_EX | LOCK_NB) == 0)
    }

    /// Any command that finds no daemon says so too, and that starting another is not the
    /// fix (found by QA: `status` said "start the lanchatd that serves it").
    @Test func aCommandWithoutItsDaemonNamesTheOneThatHoldsTheLock() async throws {
        let home = try TemporaryDirectory.make()
        let data = home + "/lanchat"
        #expect(mkdir(data, 0o700) == 0)
        let lock = data + "/" + DataDirectoryPath.lockFileName
        defer {
            unlink(lock)
            rmdir(data)
            rmdir(home)
        }
        let output = CapturedOutput()
        let free = await TestEnvironment.run(
            ["status"], socket: home + "/gone.sock", output: output,
            variables: ["XDG_DATA_HOME": home])
        #expect(free == 69 && !output.error.contains("yet lanchatd"), "\(output.error)")
        let fd = try holdLock(lock)
        defer { close(fd) }
        // Its socket removed (still bound in the kernel): a restart binds it again.
        let listener = try UnixListener.listen(path: home + "/gone.sock")
        unlink(home + "/gone.sock")
        let held = CapturedOutput()
        let code = await TestEnvironment.run(
            ["status"], socket: home + "/gone.sock", output: held,
            variables: ["XDG_DATA_HOME": home])
        close(listener)
        #expect(code == 69)
        #expect(
            held.error.contains("yet lanchatd (PID \(getpid())) runs on \(data)"), "\(held.error)")

        // Nothing bound there at all: a mistyped socket, and the daemon that runs listens on
        // another; neither "start one for it" (refused, 75) nor "kill it" (found by QA).
        let elsewhere = try UnixListener.listen(path: home + "/elsewhere.sock")
        defer {
            close(elsewhere)
            unlink(home + "/elsewhere.sock")
        }
        let typo = CapturedOutput()
        let typoCode = await TestEnvironment.run(
            ["status", "--socket", home + "/typo.sock"], output: typo,
            variables: ["XDG_DATA_HOME": home])
        #expect(typoCode == 69)
        #expect(
            typo.error.hasPrefix(
                "lanchat: nothing listens on \(home)/typo.sock, and the lanchatd that runs on "
                    + "\(data) (PID \(getpid())) listens on another socket: give lanchat the "
                    + "socket it listens on (--socket "), "\(typo.error)")
        #expect(typo.error.contains("--data-dir DIR)"), "\(typo.error)")
        #expect(!typo.error.contains("kill") && !typo.error.contains("start it"), "\(typo.error)")
    }

    /// The sockets a process listens on, found from its descriptors: the one to give lanchat.
    @Test func theSocketsAProcessListensOnAreFound() throws {
        let directory = try TemporaryDirectory.make()
        let path = directory + "/listening.sock"
        defer {
            unlink(path)
            rmdir(directory)
        }
        let listener = try UnixListener.listen(path: path)
        #expect(DataDirectoryLockProbe.listeningPaths(of: getpid())?.contains(path) == true)
        close(listener)
        #expect(DataDirectoryLockProbe.listeningPaths(of: getpid())?.contains(path) == false)
    }

    /// flock(1) holds the lock in a process of its own, and writes no PID in the file.
    @Test(.enabled(if: ToolRunner.find("flock") != nil))
    func anotherProcessHoldingTheLockIsNamed() throws {
        let (directory, lock) = try dataDirectory()
        defer {
            unlink(lock)
            rmdir(directory)
        }
        let holder = try #require(spawn(["flock", "--exclusive", lock, "sleep", "30"]))
        defer {
            kill(-holder, SIGKILL)
            var status: Int32 = 0
            waitpid(holder, &status, 0)
        }
        let deadline = monotonicMilliseconds() + 5000
        var found: Int32?
        while found == nil && monotonicMilliseconds() < deadline {
            found = DataDirectoryLockProbe.holder(of: lock)
            if found == nil { usleep(20_000) }
        }
        #expect(found == holder)
    }

    @Test func aRemovedSocketIsStillBoundWhileItsListenerLives() throws {
        let directory = try TemporaryDirectory.make()
        let path = directory + "/gone.sock"
        defer { rmdir(directory) }
        let listener = try UnixListener.listen(path: path)
        unlink(path)
        let facts = DataDirectoryLockProbe.probe(directory: directory, socketPaths: [path])
        #expect(facts.socketStillBound == true)
        #expect(facts.holderPID == nil)
        close(listener)
        #expect(
            DataDirectoryLockProbe.probe(directory: directory, socketPaths: [path])
                .socketStillBound == false)
    }

    /// The whole command, as QA ran it: a daemon holding the lock, its socket removed.
    @Test func doctorSaysTheDaemonRunsWithoutItsSocket() async throws {
        let home = try TemporaryDirectory.make()
        let (data, lock) = (home + "/lanchat", home + "/lanchat/" + DataDirectoryPath.lockFileName)
        let socket = home + "/lanchatd.sock"
        try #require(mkdir(data, 0o700) == 0)
        let fd = try holdLock(lock)
        let listener = try UnixListener.listen(path: socket)
        unlink(socket)
        defer {
            close(listener)
            close(fd)
            unlink(lock)
            rmdir(data)
            rmdir(home)
        }
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            ["doctor", "--color", "never"], socket: socket, output: captured,
            variables: ["XDG_DATA_HOME": home, "XDG_RUNTIME_DIR": "/nonexistent"])
        #expect(code == 1)
        let pid = getpid()
        let daemon = captured.output.split(separator: "\n").first { $0.hasPrefix("✗ daemon ") }
        #expect(
            daemon?.hasSuffix(
                " lanchatd (PID \(pid)) runs but its socket \(socket) is gone — fix: "
                    + "restart it: kill \(pid) and start it again (lanchatd --socket \(socket))")
                == true, "\(captured.output)")
        #expect(!captured.output.contains("lanchatd is not running"), "\(captured.output)")
    }

    /// `arguments` in a process group of its own, standard streams on /dev/null.
    func spawn(_ arguments: [String]) -> pid_t? {
        guard let path = ToolRunner.find(arguments[0]) else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        guard posix_spawn(&pid, path, &actions, &attributes, &argv, environ) == 0 else {
            return nil
        }
        return pid
    }
}
