#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Command-line arguments that were not valid UTF-8. Swift's `CommandLine.arguments` has
/// already replaced their bad bytes with U+FFFD, so a message given that way would be sent
/// changed; the raw bytes (`CommandLine.unsafeArgv`) tell which arguments those were, and the
/// commands refuse them where they carry text or a PEER (exit 65), as `send` refuses invalid
/// UTF-8 on standard input. `lanchatd` refuses any such argument (exit 64): each of its
/// options names something (a name, a path, a peer) that must not be changed silently.
///
/// The set holds the arguments as Swift decoded them (with U+FFFD), and for `--name=value`
/// also the value, so a command can recognise a parsed value that came from one of them.
package struct UndecodableArguments: Sendable, Equatable {
    package var decoded: Set<String>

    package init(decoded: Set<String> = []) {
        self.decoded = decoded
    }

    /// From raw argument bytes (without the program name).
    package init(raw arguments: [[UInt8]]) {
        var decoded: Set<String> = []
        for bytes in arguments where String(validating: bytes, as: UTF8.self) == nil {
            let repaired = String(decoding: bytes, as: UTF8.self)
            decoded.insert(repaired)
            if repaired.hasPrefix("-"), let equals = repaired.firstIndex(of: "=") {
                decoded.insert(String(repaired[repaired.index(after: equals)...]))
            }
        }
        self.decoded = decoded
    }

    /// This process's arguments, read from `argv` before Swift decoded them.
    package static func ofProcess() -> UndecodableArguments {
        let count = Int(CommandLine.argc)
        var raw: [[UInt8]] = []
        for index in 1..<max(count, 1) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let length = strlen(argument)
            raw.append(
                argument.withMemoryRebound(to: UInt8.self, capacity: length) {
                    Array(UnsafeBufferPointer(start: $0, count: length))
                })
        }
        return UndecodableArguments(raw: raw)
    }

    /// Refuses `values` (the parsed arguments of one role, e.g. the message words) when one
    /// of them came from an argument that was not UTF-8. `outcome` says what did not happen
    /// (found by QA: "nothing was sent" of `who` and `history`).
    package func check(
        _ values: [String?], as role: String, outcome: String = "nothing was done"
    ) throws(ControlError) {
        guard !decoded.isEmpty, values.contains(where: { $0.map(decoded.contains) ?? false })
        else { return }
        throw .badInput("the \(role) argument is not valid UTF-8; \(outcome)")
    }
}
