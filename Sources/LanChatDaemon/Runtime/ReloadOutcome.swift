import Synchronization

/// Why the last reload kept the running configuration, for `status` (found by QA: a broken
/// file on SIGHUP was said only in the log, and `status` looked healthy while the file on
/// disk was not what ran). `ConfigurationReload` writes it, `status` reads it.
final class ReloadOutcome: Sendable {
    private let failure = Mutex<String?>(nil)

    /// The reason of the last reload that failed; nil once one applies.
    var lastFailure: String? { failure.withLock { $0 } }

    func failed(_ reason: String) { failure.withLock { $0 = reason } }
    func applied() { failure.withLock { $0 = nil } }
}
