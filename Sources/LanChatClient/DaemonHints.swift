/// What a user whose daemon does not answer is told to do. The user service's commands only
/// for the user service's socket: a socket named by `--socket` or `LANCHAT_SOCKET` is served by
/// a lanchatd started some other way, and `systemctl --user start lanchatd` would start
/// another daemon than the one asked (as `lanchat doctor`'s fixes already say).
public struct DaemonHints: Sendable, Equatable {
    /// How to start it, after "lanchatd is not running (…); ".
    public let start: String
    /// Where its log is, after "(overloaded or hung?); ".
    public let log: String

    /// The systemd user service's daemon.
    public static let userService = DaemonHints(
        start: "start it with: systemctl --user start lanchatd",
        log: "see journalctl --user -u lanchatd")

    /// The daemon that serves `socket`, started by hand or by another unit.
    public static func startedElsewhere(socket: String) -> DaemonHints {
        DaemonHints(
            start: "start the lanchatd that serves it (lanchatd --socket \(shellQuoted(socket)))",
            log: "see the log of the lanchatd that serves it")
    }

    /// The hints for a client of `socket`, when `userServiceSocket` is the user service's.
    public static func forSocket(_ socket: String, userServiceSocket: String) -> DaemonHints {
        socket == userServiceSocket ? .userService : .startedElsewhere(socket: socket)
    }
}

/// `text` as one shell word, single-quoted when it has anything a shell would interpret: a
/// path in a command the user is told to run.
package func shellQuoted(_ text: String) -> String {
    let plain = text.allSatisfy { character in
        character.isASCII
            && (character.isLetter || character.isNumber || "/._-+:@%,=".contains(character))
    }
    if plain && !text.isEmpty { return text }
    return "'"
        + text.split(separator: "'", omittingEmptySubsequences: false)
        .joined(separator: "'\\''") + "'"
}
