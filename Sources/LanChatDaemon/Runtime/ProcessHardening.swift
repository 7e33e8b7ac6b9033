import Glibc
import LanChatCrypto

/// Process-wide protections for a program that holds a private key (PROTOCOL.md §5): files
/// created private by default, no core dumps, not dumpable.
enum ProcessHardening {
    /// Returns false when the kernel refused to make the process non-dumpable.
    @discardableResult
    static func apply() -> Bool {
        umask(0o077)
        return ProcessProtection.disableCoreDumps()
    }
}
