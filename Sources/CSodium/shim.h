// libsodium 1.0.18 (Debian 12 libsodium-dev). Imported only by LanChatCrypto.
#include <sodium.h>

#include <sys/prctl.h>
#include <sys/resource.h>

/// Keeps secrets out of core files and away from same-uid ptrace (PROTOCOL.md §5): no core
/// dumps, and the process is not dumpable. prctl(2) is variadic, which Swift cannot call, so
/// this wrapper does it. Returns 0 on success, -1 with errno set otherwise.
static inline int lanchat_disable_core_dumps(void) {
    struct rlimit none = { 0, 0 };
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
