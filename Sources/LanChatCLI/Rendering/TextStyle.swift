/// ANSI colours for text output, or none. Decided once per run from `--color` and the
/// environment (`ColorChoice.resolve`); renderers take a `TextStyle` and stay pure.
package struct TextStyle: Sendable, Equatable {
    package var enabled: Bool

    package init(enabled: Bool) {
        self.enabled = enabled
    }

    package static let plain = TextStyle(enabled: false)
    package static let colored = TextStyle(enabled: true)

    package func bold(_ text: String) -> String { wrap(text, "1") }
    package func dim(_ text: String) -> String { wrap(text, "2") }
    package func red(_ text: String) -> String { wrap(text, "31") }
    package func green(_ text: String) -> String { wrap(text, "32") }
    package func yellow(_ text: String) -> String { wrap(text, "33") }
    package func blue(_ text: String) -> String { wrap(text, "34") }
    package func cyan(_ text: String) -> String { wrap(text, "36") }
    /// Bold reverse video: search matches.
    package func highlight(_ text: String) -> String { wrap(text, "1;7") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// The `--color` option.
package enum ColorChoice: String, CaseIterable, Sendable {
    case auto, always, never

    /// `always` and `never` are obeyed as given (a command-line choice beats the environment,
    /// as no-color.org asks). `auto` colours only a terminal, and not when `NO_COLOR` is set
    /// to a non-empty value or `TERM` is `dumb`.
    package func resolve(outputIsTerminal: Bool, variables: [String: String]) -> TextStyle {
        switch self {
        case .always: return .colored
        case .never: return .plain
        case .auto:
            let noColor = !(variables["NO_COLOR"] ?? "").isEmpty
            let dumb = variables["TERM"] == "dumb"
            return TextStyle(enabled: outputIsTerminal && !noColor && !dumb)
        }
    }
}
