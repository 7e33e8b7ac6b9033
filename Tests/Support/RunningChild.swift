import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn` that keeps running while the test reads one of its
/// outputs (a pipe): standard output by default, or standard error; the other goes to
/// /dev/null. Blocking reads and the wait happen on dispatch queues, never on a
/// Swift-concurrency thread.
public final class RunningChild: @unchecked Sendable {
    public let pid: pid_t
    private let output: Int32
    private var buffer: [UInt8] = []

    /// `capturing`: 1 for standard output, 2 for standard error.
    public init?(arguments: [String], capturing descriptor: Int32 = 1) {
        guard descriptor == 1 || descriptor == 2 else { return nil }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], descriptor)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addopen(&actions, 3 - descriptor, "/dev/null", O_WRONLY, 0)
        SpawnedDescriptors.closeInherited(&actions)
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
        self.pid = pid
        output = fds[0]
    }

    /// The next line of standard output without its newline; nil at end of output.
    public func readLine() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "test.child.read").async {
                continuation.resume(returning: self.readLineBlocking())
            }
        }
    }

    /// Everything left of the captured output, to its end.
    public func readToEnd() async -> [UInt8] {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "test.child.read").async {
                var all = self.buffer
                self.buffer.removeAll()
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(self.output, &chunk, chunk.count)
                    guard count > 0 else { break }
                    all.append(contentsOf: chunk[0..<count])
                }
                continuation.resume(returning: all)
            }
        }
    }

    /// Waits for the child to end: its exit code, -1 when a signal killed it, -2 when it
    /// cannot be waited for.
    public func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "test.child.wait").async {
                var status: Int32 = 0
                guard waitpid(self.pid, &status, 0) == self.pid else {
                    continuation.resume(returning: -2)
                    return
                }
                // WIFEXITED / WEXITSTATUS, which Swift does not import.
                continuation.resume(returning: status & 0x7F == 0 ? (status >> 8) & 0xFF : -1)
            }
        }
    }

    private func readLineBlocking() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(output, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    deinit { close(output) }
}
