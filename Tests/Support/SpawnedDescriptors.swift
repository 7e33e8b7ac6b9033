#if canImport(Glibc)
    import Glibc
#endif

/// Keeps the test process's descriptors out of the programs its tests spawn.
///
/// Why: every test runs in one process, and the in-process daemons' sockets are not
/// close-on-exec (NIO opens them without SOCK_CLOEXEC). A program spawned without this got
/// them all: a tmux server, which daemonizes from its client and lives for the whole test,
/// held another test's listening socket, whose restart on the same port then failed with
/// "Address already in use". Foundation's `Process` closes them itself; `posix_spawn` does
/// not.
public enum SpawnedDescriptors {
    /// Adds "close every descriptor from 3 on" to `actions` (glibc's
    /// `posix_spawn_file_actions_addclosefrom_np`, 2.34, which Swift's Glibc module does not
    /// import). Returns false when the C library lacks it.
    @discardableResult
    public static func closeInherited(_ actions: inout posix_spawn_file_actions_t) -> Bool {
        guard let closeFrom else { return false }
        return closeFrom(&actions, 3) == 0
    }

    private typealias CloseFrom =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            return nil
        }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()
}
