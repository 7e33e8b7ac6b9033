import LanChatClient

/// Who holds the data directory's lock (`lanchatd.lock`), learned without taking it: a
/// lanchatd can run while its control socket is gone (a /tmp cleaner removed it), and then
/// "not running, start it" is advice the new daemon refuses with exit 75 (found by QA).
package struct DataDirectoryLockFacts: Sendable, Hashable {
    /// The data directory looked in: the default one, since doctor has no --data-dir.
    package var directory: String
    /// The process holding the lock; nil when none does (or there is no lock file).
    package var holderPID: Int32?
    /// Whether some process listens on a Unix socket bound at the socket path asked about,
    /// even one whose file was removed (`/proc/net/unix`); nil when that could not be read.
    package var socketStillBound: Bool?
    /// The paths of the Unix sockets the holder listens on: the socket to give lanchat when
    /// it is not the one asked about; none while it starts (its socket comes after the lock);
    /// nil when its descriptors could not be read.
    package var holderSockets: [String]?

    package init(
        directory: String, holderPID: Int32?, socketStillBound: Bool? = nil,
        holderSockets: [String]? = nil
    ) {
        self.directory = directory
        self.holderPID = holderPID
        self.socketStillBound = socketStillBound
        self.holderSockets = holderSockets
    }

    /// "give lanchat the socket it listens on": that socket, when there is exactly one.
    var socketToGive: String {
        guard let sockets = holderSockets, sockets.count == 1 else {
            return "give lanchat the socket it listens on (--socket PATH or LANCHAT_SOCKET)"
        }
        return "give lanchat the socket it listens on (--socket \(shellQuoted(sockets[0]))"
            + " or LANCHAT_SOCKET)"
    }

    /// The holder listens on no socket at all, or on the one asked about by now: it is
    /// starting (the lock comes first), and its socket is, or is about to be, the one asked
    /// about (found by QA: a call during a start was sent to "another socket", twice: once
    /// before the socket was bound, once when it was bound between the two looks).
    func holderIsStarting(asked paths: [String]) -> Bool {
        guard let sockets = holderSockets else { return false }
        return sockets.isEmpty || sockets.contains(where: paths.contains)
    }
}
