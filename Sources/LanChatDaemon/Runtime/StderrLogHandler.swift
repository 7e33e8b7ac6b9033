import Glibc
import LanChatControl
import Logging

/// Logs one line per event to stderr (PRODUCT.md §3). Under systemd (`JOURNAL_STREAM` set)
/// each line starts with its syslog priority `<N>` and journald adds the timestamp;
/// otherwise the line starts with an RFC 3339 time and the level. Each line is written with
/// a single `write(2)`, so lines from several threads never interleave.
///
/// Message text, keys and plaintext are never passed to the logger at info or above; that is
/// the callers' rule. But names, status texts and addresses are, and they come from peers or
/// from the configuration: the message and every metadata value go through `TerminalText`'s
/// rule, so a log line stays one line and cannot drive the terminal that shows it.
public struct StderrLogHandler: LogHandler {
    /// Shared by every copy of every logger made from this handler, so that SIGHUP can change
    /// the level of the whole daemon at once (`LogLevelSetting`).
    public var logLevel: Logger.Level {
        get { levelSetting.level }
        set { levelSetting.level = newValue }
    }
    public var metadata: Logger.Metadata = [:]
    let label: String
    let journal: Bool
    let levelSetting: LogLevelSetting

    public init(label: String, level: Logger.Level, journal: Bool) {
        self.init(label: label, levelSetting: LogLevelSetting(level), journal: journal)
    }

    public init(label: String, levelSetting: LogLevelSetting, journal: Bool) {
        self.label = label
        self.levelSetting = levelSetting
        self.journal = journal
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var bytes = Array(line(for: event).utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// The line written for `event`, newline included.
    func line(for event: LogEvent) -> String {
        let text = Self.body(event.message, metadata: metadata, event.metadata)
        if journal {
            return "<\(Self.priority(event.level))>\(text)\n"
        }
        return "\(Self.timestamp()) \(event.level) \(label): \(text)\n"
    }

    /// `message key=value …`, keys sorted, the message and each key and value terminal-safe.
    static func body(
        _ message: Logger.Message, metadata: Logger.Metadata, _ extra: Logger.Metadata?
    ) -> String {
        var merged = metadata
        if let extra { merged.merge(extra) { _, new in new } }
        let fields = merged.sorted { $0.key < $1.key }.map {
            TerminalText.line($0.key) + "=" + TerminalText.line("\($0.value)")
        }
        let suffix = fields.isEmpty ? "" : " " + fields.joined(separator: " ")
        return TerminalText.line("\(message)") + suffix
    }

    /// The priority of `error`, for lines written before logging is set up (usage errors).
    public static let errorPriority = priority(.error)

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(now.tv_nsec / 1_000_000)
        let millisText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millisText)Z"
    }
}
