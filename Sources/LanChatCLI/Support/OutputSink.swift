import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command's text goes. Commands build whole blocks of text and write each once, so
/// an implementation needs no buffering of its own.
package protocol OutputSink: Sendable {
    /// Data: tables, ids, JSON.
    func standardOutput(_ text: String)
    /// Diagnostics: `lanchat: <message>`, hints, rejected input lines.
    func standardError(_ text: String)
}

/// The process's descriptors 1 and 2, written with `write(2)` directly: no stdio buffer to
/// flush, so ids printed by `send --lines` reach a pipe as soon as they are known.
package struct StandardStreams: OutputSink {
    package init() {}

    package func standardOutput(_ text: String) { Self.write(text, to: 1) }
    package func standardError(_ text: String) { Self.write(text, to: 2) }

    private static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(
                    fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                // A closed pipe (`lanchat who | head -1`) is not an error worth reporting.
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

/// Collects output in memory, for tests.
package final class CapturedOutput: OutputSink {
    private let captured = Mutex((output: "", error: ""))

    package init() {}

    package func standardOutput(_ text: String) { captured.withLock { $0.output += text } }
    package func standardError(_ text: String) { captured.withLock { $0.error += text } }

    package var output: String { captured.withLock { $0.output } }
    package var error: String { captured.withLock { $0.error } }
}
