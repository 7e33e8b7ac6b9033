import LanChatCLI
import Synchronization

/// Captured output that also publishes each standard-output line as it is written, so a
/// test can await "lanchat has printed N lines" of a command that runs until cancelled.
final class StreamingOutput: OutputSink {
    let lines: AsyncStream<String>
    private let sink: AsyncStream<String>.Continuation
    private let captured = Mutex((output: "", error: "", pending: ""))

    init() {
        (lines, sink) = AsyncStream.makeStream(of: String.self)
    }

    func standardOutput(_ text: String) {
        let complete: [String] = captured.withLock { captured in
            captured.output += text
            captured.pending += text
            var lines = captured.pending.split(separator: "\n", omittingEmptySubsequences: false)
            captured.pending = String(lines.removeLast())
            return lines.map(String.init)
        }
        for line in complete { sink.yield(line) }
    }

    func standardError(_ text: String) { captured.withLock { $0.error += text } }

    var output: String { captured.withLock { $0.output } }
    var error: String { captured.withLock { $0.error } }
}
