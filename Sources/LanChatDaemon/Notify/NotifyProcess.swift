import Foundation
import Glibc

/// One run of the notify command: `/bin/sh -c COMMAND` with the message in its environment
/// only (PRODUCT.md §3), never in the command line, so nothing in a message is ever parsed
/// by the shell. posix_spawn (not Foundation.Process): its own process group, so ending it
/// ends what it started; default signal dispositions (the daemon ignores some); stdin,
/// stdout and stderr on /dev/null (what it prints could carry the message to the log); no
/// descriptor of the daemon's (sockets, the store) inherited.
enum NotifyProcess {
    enum Outcome: Sendable, Equatable {
        /// Exit status, or 128 + signal.
        case exited(Int32)
        case couldNotStart(Int32)
    }

    /// Starts the command; returns its pid, or the errno of posix_spawn.
    static func spawn(command: String, variables: [String: String]) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        if let closeFrom = closeFrom { _ = closeFrom(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var argv: [UnsafeMutablePointer<CChar>?] =
            ["sh", "-c", command].map { (text: String) in strdup(text) } + [nil]
        // The daemon's environment (PATH, DISPLAY, DBUS_SESSION_BUS_ADDRESS for notify-send)
        // with ours replacing any inherited LANCHAT_* of the same name. A NUL cannot be in an
        // environment string; a text carrying one is cut there by the C string anyway, so it
        // is shown as U+FFFD instead.
        var envp: [UnsafeMutablePointer<CChar>?] =
            environment(inherited: currentEnvironment(), variables: variables).map { strdup($0) }
            + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, &envp)
        guard status == 0 else { return .failure(SpawnError(code: status)) }
        return .success(pid)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module
    /// does not import: the child closes every descriptor from 3 on. It matters: NIO opens
    /// its sockets without SOCK_CLOEXEC, so a notify command would otherwise hold the
    /// listening socket (a restarted daemon could not bind its port) and keep sessions from
    /// closing. Looked up once; the project's platform (Debian 12, glibc 2.36) has it.
    private typealias CloseFrom =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    struct SpawnError: Error, Sendable {
        let code: Int32
    }

    /// The command's environment: the daemon's, less `daemonsOwn`, with `variables`
    /// replacing any inherited of the same name.
    static func environment(inherited: [String], variables: [String: String]) -> [String] {
        let ours = variables.map { "\($0.key)=\($0.value.replacingNUL)" }
        let kept = inherited.filter { entry in
            !(Array(variables.keys) + daemonsOwn + ownVariables).contains {
                entry.hasPrefix($0 + "=")
            }
        }
        return kept + ours
    }

    /// Every variable a run may be given: one the daemon inherited is never passed on, so
    /// that a 1:1 message's run has no `LANCHAT_GROUP` (lanchatd(8): unset otherwise).
    static let ownVariables = [
        "LANCHAT_FROM", "LANCHAT_FROM_ID", "LANCHAT_TEXT", "LANCHAT_GROUP", "LANCHAT_GROUP_ID",
    ]

    /// What systemd gave the daemon itself: the socket to notify it by and its watchdog,
    /// the descriptors of socket activation. A command that saw them could speak for the
    /// daemon (`systemd-notify`) or take its sockets for its own (found by QA).
    static let daemonsOwn = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
        "LISTEN_FDNAMES",
    ]

    /// Waits for `pid` to end, on a thread of its own. Not a Swift-concurrency thread, nor
    /// Dispatch's global queue, which on Linux is the pool those run on: four commands
    /// blocked in `waitid` held both of this machine's pool threads, and every message, API
    /// call and commit waited until Dispatch added a thread a second later (found by QA:
    /// deliveries of 1 to 2 s during a burst of notifications). `ended` runs once it has ended but before it is reaped:
    /// until then its pid (and process group) cannot be reused, so a kill decided under the
    /// same lock never reaches another process.
    static func wait(_ pid: pid_t, ended: @escaping @Sendable () -> Void) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
                ended()
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, which Swift does not import.
                let exited = status & 0x7F == 0
                continuation.resume(
                    returning: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
            }
        }
    }

    /// Ends the command and everything it started.
    static func kill(_ pid: pid_t) {
        _ = Glibc.kill(-pid, SIGKILL)
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

extension String {
    fileprivate var replacingNUL: String {
        contains("\0") ? String(map { $0 == "\0" ? "\u{FFFD}" : $0 }) : self
    }
}
