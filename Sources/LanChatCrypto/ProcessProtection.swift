internal import CSodium

/// Process-wide protection of the secrets this module keeps in memory (PROTOCOL.md §5).
/// Called once by the daemon at start-up, before the identity key is loaded.
public enum ProcessProtection {
    /// No core dumps (`RLIMIT_CORE` 0) and not dumpable (`PR_SET_DUMPABLE` 0), so a crash or
    /// a same-uid debugger cannot copy the key out of memory. Returns false if the kernel
    /// refused, which the caller logs; the daemon still runs.
    @discardableResult
    public static func disableCoreDumps() -> Bool {
        lanchat_disable_core_dumps() == 0
    }
}
