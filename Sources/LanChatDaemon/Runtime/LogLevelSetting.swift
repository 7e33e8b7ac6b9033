import Logging
import Synchronization

/// The daemon's one log level, shared by every `StderrLogHandler`: `lanchatd` sets it from
/// `--log-level` / `log-level`, and a reload (SIGHUP) changes it for every logger at once.
public final class LogLevelSetting: Sendable {
    private let current: Mutex<Logger.Level>

    public init(_ level: Logger.Level) {
        current = Mutex(level)
    }

    public var level: Logger.Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
