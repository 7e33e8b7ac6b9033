import LanChatClient

/// What the socket and daemon checks say when nothing answers on the socket, yet a process
/// holds the default data directory's lock: a lanchatd runs, and starting another is refused
/// with exit 75, "another lanchatd uses …" (QA: doctor said "not running, start it" after
/// the socket was removed, as cleaning /tmp does to the default one under /tmp/lanchat-UID).
enum RunningWithoutSocket {
    /// nil when no process holds the lock: then no lanchatd runs on the default data
    /// directory, and "start it" is the right advice.
    static func verdict(_ name: String, _ facts: DoctorFacts) -> DoctorCheckResult? {
        guard let lock = facts.dataDirectoryLock, let pid = lock.holderPID else { return nil }
        let socket = shellQuoted(facts.socketPath)
        let asked = [facts.socketPath, DoctorGathering.absolutePath(facts.socketPath)]
        if lock.socketStillBound == false, lock.holderIsStarting(asked: asked) {
            return .failed(
                name,
                "lanchatd (PID \(pid)) on \(lock.directory) is starting and has not opened its "
                    + "socket yet",
                fix: "run lanchat doctor again in a moment")
        }
        if lock.socketStillBound == false {
            // Nothing listens at that path, not even at a removed file: the daemon was started
            // with another socket (--socket, or another XDG_RUNTIME_DIR than this shell's).
            // Killing it would stop a daemon that is fine.
            return .failed(
                name,
                "lanchatd (PID \(pid)) runs on \(lock.directory) but does not listen on "
                    + facts.socketPath,
                fix: lock.socketToGive + "; "
                    + "a second lanchatd for \(socket) needs a data directory of its own: "
                    + "lanchatd --socket \(socket) --data-dir DIR")
        }
        // Only a restart makes a daemon bind its socket again.
        let restart =
            facts.usesDefaultSocket
            ? "restart it: systemctl --user restart lanchatd (or kill \(pid) and start it again)"
            : "restart it: kill \(pid) and start it again (lanchatd --socket \(socket))"
        return .failed(
            name, "lanchatd (PID \(pid)) runs but its socket \(facts.socketPath) is gone",
            fix: restart)
    }
}
