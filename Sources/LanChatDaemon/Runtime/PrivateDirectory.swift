import Glibc

/// Directories that hold private state (data, runtime): created 0700, and refused when they
/// belong to someone else or others may write to them.
enum PrivateDirectory {
    static func ensure(_ path: String, purpose: String) throws(DaemonError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else {
                throw .dataDirectory("cannot inspect the \(purpose) \(path): \(errnoText())")
            }
            try createParents(of: path, purpose: purpose)
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                throw .dataDirectory("cannot create the \(purpose) \(path): \(errnoText())")
            }
            guard lstat(path, &info) == 0 else {
                throw .dataDirectory("cannot inspect the \(purpose) \(path): \(errnoText())")
            }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .dataDirectory("the \(purpose) \(path) is not a directory")
        }
        guard info.st_uid == geteuid() else {
            throw .dataDirectory("the \(purpose) \(path) belongs to uid \(info.st_uid), not to us")
        }
        if info.st_mode & 0o077 != 0 {
            // Tighten a directory we own rather than refuse: it may predate lanchat.
            guard chmod(path, 0o700) == 0 else {
                throw .dataDirectory("cannot make the \(purpose) \(path) private: \(errnoText())")
            }
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
