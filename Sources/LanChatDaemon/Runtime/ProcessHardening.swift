import Glibc

/// Process-wide protections for a program that holds a private key (PROTOCOL.md §5): files
/// created private by default, no core dumps.
enum ProcessHardening {
    static func apply() {
        umask(0o077)
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
    }
}
