import Glibc
import LanChatCore

/// Directories that hold private state (data, runtime): created 0700, and refused when they
/// belong to someone else or others may write to them.
enum PrivateDirectory {
    /// The data directory: lanchat's own, so a wider mode (it may predate lanchat) is
    /// tightened to 0700 rather than refused.
    static func ensure(_ path: String, purpose: String) throws(DaemonError) {
        let info = try existingOrCreated(path, purpose: purpose)
        try checkPlace(of: path, purpose: purpose)
        guard info.st_uid == geteuid() else {
            throw .dataDirectory("the \(purpose) \(path) belongs to uid \(info.st_uid), not to us")
        }
        if info.st_mode & 0o077 != 0 {
            guard chmod(path, 0o700) == 0 else {
                throw .dataDirectory("cannot make the \(purpose) \(path) private: \(errnoText())")
            }
        }
    }

    /// The control socket's directory. One lanchatd creates (the default,
    /// `$XDG_RUNTIME_DIR/lanchat`) is 0700; one that exists is the user's choice of
    /// `--socket` (`/tmp/alice.sock`) and keeps its mode: the socket itself is 0600 and
    /// answers only our uid. What is refused is a directory where someone else could remove
    /// or replace the socket: another user's, unless it is root's and sticky, as /tmp is (a
    /// sticky directory's owner may still remove what is in it: found by QA, a
    /// /tmp/lanchat-UID made sticky by another user, who then took the socket's place).
    static func ensureForSocket(_ path: String) throws(DaemonError) {
        let purpose = "control socket directory"
        let info = try existingOrCreated(path, purpose: purpose)
        try checkPlace(of: path, purpose: purpose)
        let ours = info.st_uid == geteuid()
        let sticky = info.st_mode & S_ISVTX != 0 && info.st_uid == 0
        guard ours || sticky else {
            throw .dataDirectory(
                "the \(purpose) \(path) belongs to uid \(info.st_uid), who could replace the "
                    + "socket; pass a --socket in a directory of yours")
        }
    }

    /// The directory at `path`, created 0700 (with its missing parents) if there is none. A
    /// symbolic link to a directory is the directory (data kept on another disk, say; QA found
    /// it refused as "not a directory"): what it points to is checked, owner and mode.
    private static func existingOrCreated(_ path: String, purpose: String) throws(DaemonError)
        -> stat
    {
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else {
                throw .dataDirectory("cannot inspect the \(purpose) \(path): \(errnoText())")
            }
            try createParents(of: path, purpose: purpose)
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                throw .dataDirectory("cannot create the \(purpose) \(path): \(errnoText())")
            }
            guard stat(path, &info) == 0 else {
                throw .dataDirectory("cannot inspect the \(purpose) \(path): \(errnoText())")
            }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .dataDirectory("the \(purpose) \(path) is not a directory")
        }
        return info
    }

    /// Where the directory at `path` is: another user (root excepted) who made a symbolic
    /// link at `path`, owns the directory holding it, or may write that one (without a
    /// sticky bit of root's) could move ours away and put theirs in its place (found by QA:
    /// a data directory's parent writable by all let another user swap the data directory
    /// for an empty one, and the daemon made itself a new identity there).
    private static func checkPlace(of path: String, purpose: String) throws(DaemonError) {
        let me = geteuid()
        var link = stat()
        if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK,
            link.st_uid != me, link.st_uid != 0
        {
            throw .dataDirectory(
                "the \(purpose) \(path) is a symbolic link made by uid \(link.st_uid), who could "
                    + "point it elsewhere; remove it, or give a path of yours")
        }
        let parent = directoryPart(of: path)
        switch DirectoryTrust.danger(of: parent, uid: me, gid: getegid()) {
        case nil:
            return
        case .ownedBy(let owner)?:
            throw .dataDirectory(
                "the \(purpose) \(path) is in \(parent), which belongs to uid \(owner), "
                    + "who could replace it; give a path in a directory of yours")
        case .writableByOthers(let mode)?:
            throw .dataDirectory(
                "the \(purpose) \(path) is in \(parent), which others may write (mode \(mode)) "
                    + "and so replace it: chmod go-w \(parent)")
        }
    }

    /// `mkdir -p` for the parents (mode 0700 for those we create, like XDG dirs).
    private static func createParents(of path: String, purpose: String) throws(DaemonError) {
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        for part in parts {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .dataDirectory("cannot create \(prefix) for the \(purpose): \(errnoText())")
            }
        }
    }
}

func errnoText() -> String { String(cString: strerror(errno)) }
