import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the system tools the doctor asks (busctl, avahi-browse, ip, nft, resolvectl) with
/// posix_spawn, each bounded: at the time limit its process group is killed and what it
/// printed so far is kept (avahi-browse -t -r can hang when a record goes while it
/// resolves). The wait runs on a dispatch queue, never on a Swift-concurrency thread.
enum ToolRunner {
    static let defaultTimeout: Int32 = 2000
    /// More than any answer the doctor reads; the rest is dropped.
    static let outputLimit = 1 << 20
    /// sbin directories hold avahi-daemon, ip and nft but are often missing from a user's PATH.
    static let extraDirectories = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]

    static func run(
        _ tool: String, _ arguments: [String], timeoutMilliseconds: Int32 = defaultTimeout
    )
        async -> ToolRun
    {
        guard let path = find(tool) else { return .missing(tool) }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: runBlocking(path, [tool] + arguments, timeout: timeoutMilliseconds))
            }
        }
    }

    /// The first executable `tool` in PATH or the extra directories.
    static func find(_ tool: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        let directories = path.split(separator: ":").map(String.init) + extraDirectories
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + tool
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    private static func runBlocking(_ path: String, _ arguments: [String], timeout: Int32)
        -> ToolRun
    {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard makePipe(&outPipe) else { return failedToStart(arguments[0]) }
        guard makePipe(&errPipe) else {
            close(outPipe[0])
            close(outPipe[1])
            return failedToStart(arguments[0])
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Its own process group, so a time-out kills whatever it started too.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        var argv = arguments.map { strdup($0) } + [nil]
        // Plain C output whatever the user's locale: the checks parse it.
        let environment = currentEnvironment().filter { !$0.hasPrefix("LC_ALL=") } + ["LC_ALL=C"]
        var envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            return failedToStart(arguments[0])
        }
        let (output, error, timedOut) = collect(outPipe[0], errPipe[0], timeout: timeout)
        close(outPipe[0])
        close(errPipe[0])
        if timedOut { kill(-pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        let exited = status & 0x7F == 0
        return .ran(
            ToolOutput(
                status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F),
                standardOutput: String(decoding: output, as: UTF8.self),
                standardError: String(decoding: error, as: UTF8.self), timedOut: timedOut))
    }

    /// Reads both pipes until both end or the time is up; returns what was read and whether
    /// time ran out first.
    private static func collect(_ outFD: Int32, _ errFD: Int32, timeout: Int32)
        -> ([UInt8], [UInt8], Bool)
    {
        var buffers: [[UInt8]] = [[], []]
        var open = [true, true]
        let descriptors = [outFD, errFD]
        let deadline = monotonicMilliseconds() + Int64(timeout)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while open.contains(true) {
            let remaining = deadline - monotonicMilliseconds()
            if remaining <= 0 { return (buffers[0], buffers[1], true) }
            var polled = (0..<2).filter { open[$0] }.map {
                pollfd(fd: descriptors[$0], events: Int16(POLLIN), revents: 0)
            }
            let ready = poll(&polled, nfds_t(polled.count), Int32(remaining))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            for entry in polled where entry.revents != 0 {
                guard let index = descriptors.firstIndex(of: entry.fd) else { continue }
                let count = read(entry.fd, &chunk, chunk.count)
                if count <= 0 {
                    if count < 0 && errno == EINTR { continue }
                    open[index] = false
                } else if buffers[index].count < outputLimit {
                    buffers[index].append(contentsOf: chunk[0..<count])
                }
            }
        }
        return (buffers[0], buffers[1], false)
    }

    /// A pipe whose ends close on exec, so tools spawned at the same time do not hold each
    /// other's pipes open (which would keep a reader waiting for the other tool to end).
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private static func failedToStart(_ tool: String) -> ToolRun {
        .ran(ToolOutput(status: 127, standardError: "cannot start \(tool)"))
    }

    private static func currentEnvironment() -> [String] {
        var variables: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            variables.append(String(cString: entry))
            pointer += 1
        }
        return variables
    }
}

func monotonicMilliseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
}
