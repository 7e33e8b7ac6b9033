import Logging
import Synchronization

/// Keeps every log line a backend writes (and prints it), so tests can check what was logged
/// and that no key material ever was (PROTOCOL.md §7.3 item 41).
final class LogCapture: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
    }

    private let storage = Mutex<[Line]>([])

    var lines: [Line] { storage.withLock { $0 } }

    /// A logger that captures every level, and prints lines at `echoLevel` and above to
    /// standard error.
    func logger(label: String, echoLevel: Logger.Level) -> Logger {
        Logger(label: label) { label in
            var echo = StreamLogHandler.standardError(label: label)
            echo.logLevel = echoLevel
            return MultiplexLogHandler([CapturingHandler(capture: self, logLevel: .trace), echo])
        }
    }

    /// Waits until a captured line contains `fragment` (checked every 50 ms, for at most
    /// `seconds`); false if none did.
    func awaitLine(containing fragment: String, within seconds: Double = 20) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline {
            if lines.contains(where: { $0.message.contains(fragment) }) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return lines.contains { $0.message.contains(fragment) }
    }

    fileprivate func append(_ line: Line) {
        storage.withLock { $0.append(line) }
    }
}

private struct CapturingHandler: LogHandler {
    let capture: LogCapture
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        capture.append(LogCapture.Line(level: event.level, message: event.message.description))
    }
}
