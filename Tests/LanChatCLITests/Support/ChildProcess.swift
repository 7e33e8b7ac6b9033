import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion with `posix_spawn`, capturing its standard error. The wait
/// happens on a dispatch queue, never on a Swift-concurrency thread.
enum ChildProcess {
    struct Outcome: Sendable {
        var status: Int32
        var standardError: String
    }

    static func run(_ arguments: [String]) async -> Outcome? {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "test.child").async {
                continuation.resume(returning: runBlocking(arguments))
            }
        }
    }

    private static func runBlocking(_ arguments: [String]) -> Outcome? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)

        var argv = arguments.map { strdup($0) } + [nil]
        defer {
            for argument in argv { free(argument) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            return nil
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fds[0], &chunk, chunk.count)
            if count <= 0 { break }
            output.append(contentsOf: chunk[0..<count])
        }
        close(fds[0])
        var status: Int32 = 0
        guard waitpid(pid, &status, 0) == pid else { return nil }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        let exited = status & 0x7F == 0
        return Outcome(
            status: exited ? (status >> 8) & 0xFF : -1,
            standardError: String(decoding: output, as: UTF8.self))
    }
}
