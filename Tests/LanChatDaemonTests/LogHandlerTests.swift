import LanChatControl
import Logging
import Testing

@testable import LanChatDaemon

/// The daemon's log lines carry names and addresses that peers and configuration chose; they
/// must stay one line and never drive the terminal or journal viewer that shows them.
@Suite struct LogHandlerTests {
    static func event(_ message: Logger.Message, _ metadata: Logger.Metadata?) -> LogEvent {
        LogEvent(
            level: .notice, message: message, metadata: metadata, source: nil, file: #fileID,
            function: #function, line: #line)
    }

    @Test func messageAndMetadataValuesAreNeutralised() {
        var handler = StderrLogHandler(label: "lanchatd", level: .info, journal: true)
        handler[metadataKey: "name"] = "\u{1B}]0;pwned\u{7}"
        let line = handler.line(
            for: Self.event(
                "peer \u{202E}gnp.exe\u{9B}2J online\nsecond line",
                ["address": "10.0.0.1\r\n\u{7F}", "nested": ["k": "\u{2066}v"]]))
        #expect(
            line
                == "<5>peer "
                + #"\u{202E}gnp.exe\u{9B}2J"#
                + " online second line "
                + #"address=10.0.0.1 \u{7F} name=\u{1B}]0;pwned\u{7} nested=["k": "\u{2066}v"]"#
                + "\n")
        // One line, and nothing a terminal would act on.
        #expect(line.dropLast().allSatisfy { !$0.isNewline })
        #expect(
            !line.unicodeScalars.contains { scalar in
                (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                    || TerminalText.needsEscape(scalar) && scalar != "\n"
            })
    }

    @Test func ordinaryLinesAreUnchanged() {
        let handler = StderrLogHandler(label: "lanchatd", level: .info, journal: true)
        let line = handler.line(for: Self.event("listening on 0.0.0.0:41000 — ok ✓", ["n": "2"]))
        #expect(line == "<5>listening on 0.0.0.0:41000 — ok ✓ n=2\n")
    }
}
