import LanChatClient
import LanChatControl

/// The control socket exists, is a socket, is ours and 0600 (PRODUCT.md §2), in a directory
/// nobody else can change: ours and writable by us alone, or sticky (as /tmp is), where
/// others may not remove or replace our socket. The same rule as lanchatd's
/// (`PrivateDirectory.ensureForSocket`), plus the mode of a directory of ours. A symbolic
/// link is followed, as connect(2) follows it: the rule applies to the socket it leads to.
struct SocketCheck: DoctorCheck {
    let name = "socket"
    private let notASocket = "exists but is not a socket"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        let path = facts.socketPath
        let socket = facts.socketTarget ?? path
        let shown = facts.socketTarget.map { "\(path) → \($0)" } ?? path
        switch facts.socket {
        case .missing:
            if let running = RunningWithoutSocket.verdict(name, facts) { return running }
            return .failed(
                name, "no control socket at \(shown): lanchatd is not running",
                fix: DoctorFix.startDaemon(facts))
        case .directory, .notASocket:
            // A path of the user's own choosing (--socket, LANCHAT_SOCKET) names something of
            // theirs by mistake, most likely the data directory: never moved, which would move
            // the identity key and the messages with it. At the default path, in lanchat's
            // own directory, it is debris.
            let isDirectory = facts.socket == .directory
            guard facts.usesDefaultSocket else {
                let what = isDirectory ? "is a directory, not the control socket" : notASocket
                return .failed(name, "\(shown) \(what)", fix: DoctorFix.checkSocketOption(facts))
            }
            let clear =
                isDirectory
                ? "rmdir \(shellQuoted(path))"
                : "move the file aside: mv \(shellQuoted(path)) \(shellQuoted(path + ".old"))"
            return .failed(
                name,
                "\(shown) "
                    + (isDirectory ? "is a directory where lanchatd's socket belongs" : notASocket),
                fix: "\(clear) && \(DoctorFix.restartDaemon(facts))")
        case .present(let mode, let owner, let directoryMode, let directoryOwner):
            // Absolute, so that the message and the fix mean the same wherever they are read.
            let directory = facts.socketDirectory ?? parentDirectory(of: socket)
            let socketFile = (directory == "/" ? "" : directory) + "/" + lastComponent(of: socket)
            let sticky = directoryMode & 0o1000 != 0
            if owner != facts.uid || (directoryOwner != facts.uid && !sticky) {
                return .failed(
                    name,
                    "\(shown) or its directory belongs to uid \(owner == facts.uid ? directoryOwner : owner), "
                        + "not to you (uid \(facts.uid))",
                    fix: "--socket PATH or LANCHAT_SOCKET pointing at your own lanchatd's socket")
            }
            if mode & 0o777 != 0o600 {
                return .failed(
                    name, "\(shown) is \(octalMode(mode)); it must be 0600",
                    fix: "chmod 0600 \(shellQuoted(socketFile))")
            }
            if !sticky && directoryMode & 0o022 != 0 {
                return .failed(
                    name,
                    "\(directory) is \(octalMode(directoryMode)): others may replace the socket "
                        + "in it",
                    fix: "chmod go-w \(shellQuoted(directory))")
            }
            let place =
                sticky
                ? "a sticky directory" : "a \(octalMode(directoryMode)) directory of yours"
            return .passed(name, "\(shown) (0600, in \(place))")
        }
    }
}

/// The data directory can take messages: writable by us, and its file system not (nearly)
/// full. A full disk fails every `send` (exit 74) while everything else looks fine.
struct DataDirectoryCheck: DoctorCheck {
    let name = "data directory"
    /// Below this a burst of messages, or the WAL of one large batch, no longer fits.
    static let lowSpace: UInt64 = 64 << 20

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        guard let directory = facts.dataDirectory else { return skippedWithoutDaemon(name) }
        let path = shellQuoted(directory.path)
        guard directory.writable else {
            return .failed(
                name, "\(directory.path) is not writable: no message can be stored",
                fix: "chown \(facts.uid) \(path) && chmod 0700 \(path)")
        }
        guard let free = directory.freeBytes else {
            return .passed(name, "\(directory.path) (free space unknown)")
        }
        let room = Self.megabytes(free)
        guard free >= Self.lowSpace else {
            return .failed(
                name,
                "the disk holding \(directory.path) has \(room) free: sending fails once it is full",
                fix: "free some space on it (df -h \(path))")
        }
        return .passed(name, "\(directory.path) (\(room) free)")
    }

    static func megabytes(_ bytes: UInt64) -> String {
        bytes >= 10 << 30 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
    }
}

/// lanchatd answers `status` on the socket.
struct DaemonCheck: DoctorCheck {
    let name = "daemon"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        switch facts.status {
        case .success(let status):
            return .passed(
                name,
                "lanchatd \(status.version) answers (up "
                    + "\(SmartTime.duration(seconds: status.uptimeSeconds)))")
        case .failure(let error):
            switch error.exitCode {
            case 69:
                // The client's message ends with the start hint, which is the fix here: for
                // the user service's socket or another one (found by QA: the other's hint
                // was said twice, in the message and in the fix).
                var message = error.message
                if let hint = message.firstRange(of: "); ") {
                    message = String(message[..<hint.lowerBound]) + ")"
                }
                // A path that is no socket at all is a wrong --socket, not a daemon to start.
                let wrongPath = [.directory, .notASocket].contains(facts.socket)
                if !wrongPath, let running = RunningWithoutSocket.verdict(name, facts) {
                    return running
                }
                return .failed(
                    name, message,
                    fix: wrongPath && !facts.usesDefaultSocket
                        ? DoctorFix.checkSocketOption(facts) : DoctorFix.startDaemon(facts))
            case 77:
                return .failed(
                    name, "permission denied on the socket: \(error.message)",
                    fix: "run lanchat as the user who runs lanchatd, or "
                        + DoctorFix.restartDaemon(facts))
            default:
                return .failed(
                    name, "lanchatd did not answer status: \(error.message)",
                    fix: DoctorFix.restartDaemonAndLog(facts))
            }
        }
    }
}

/// The CLI and the daemon are the same release: after an upgrade the running daemon is
/// still the old binary until it restarts.
struct VersionCheck: DoctorCheck {
    let name = "version"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        guard let status = facts.daemon else { return skippedWithoutDaemon(name) }
        let cli = "lanchat \(LanChatVersion.current) (control API \(ControlAPI.version))"
        let daemon = "lanchatd \(status.version) (control API \(status.apiVersion))"
        if status.apiVersion != ControlAPI.version {
            return .failed(
                name, "\(cli) cannot fully talk to \(daemon)",
                fix: "install lanchat and lanchatd from the same release, then "
                    + DoctorFix.restartDaemon(facts))
        }
        if status.version != LanChatVersion.current {
            return .failed(
                name, "\(cli) but \(daemon): the daemon runs another release",
                fix: DoctorFix.restartDaemon(facts))
        }
        return .passed(
            name, "lanchat and lanchatd \(status.version), control API \(status.apiVersion)")
    }
}

/// The configuration file on disk is what runs: the last reload (SIGHUP) applied, or none
/// was asked for. One that failed keeps the running configuration, so an edit looks taken
/// while it is not (found by QA: said only in the log).
struct ConfigurationCheck: DoctorCheck {
    let name = "configuration"

    func evaluate(_ facts: DoctorFacts) -> DoctorCheckResult {
        guard let status = facts.daemon else { return skippedWithoutDaemon(name) }
        guard let reloadError = status.reloadError else {
            return .passed(name, "the last reload applied (or none was asked for)")
        }
        let reload =
            facts.usesDefaultSocket
            ? "systemctl --user reload lanchatd"
            : "kill -HUP the lanchatd that serves \(shellQuoted(facts.socketPath))"
        return .failed(
            name,
            "the last reload failed, the file is not what runs: \(terminalSafe(reloadError))",
            fix: "correct the file, then \(reload)")
    }
}

/// The last part of a path (`lanchatd.sock` of `/run/user/1000/lanchat/lanchatd.sock`).
func lastComponent(of path: String) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
}

/// The directory part of a path (`/run/user/1000/lanchat` of `…/lanchatd.sock`).
func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
