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

    package init(directory: String, holderPID: Int32?, socketStillBound: Bool? = nil) {
        self.directory = directory
        self.holderPID = holderPID
        self.socketStillBound = socketStillBound
    }
}
