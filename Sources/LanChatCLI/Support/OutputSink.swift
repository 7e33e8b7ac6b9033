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
    /// Data could not be written (a full disk, a closed descriptor): the command's output
    /// is incomplete, so it must not exit 0.
    var outputFailed: Bool { get }
}

extension OutputSink {
    package var outputFailed: Bool { false }
}

/// errno of the first failed write to standard output (0: none). Process-wide, as the
/// descriptor is.
private let standardOutputFailure = Atomic<Int32>(0)
/// Descriptor 1 was closed when the process started (`lanchat send bob hi >&-`).
private let standardOutputClosed = Atomic<Bool>(false)
/// Descriptor 0 was closed when the process started (`lanchat send bob <&-`).
private let standardInputClosed = Atomic<Bool>(false)

/// Whether the process started without descriptor 0: reading it is then an error, not the
/// empty input of the /dev/null put in its place (found by QA: `send bob <&-` said "the
/// message is empty", and `send bob --lines <&-` sent nothing and exited 0).
package var standardInputWasClosed: Bool {
    standardInputClosed.load(ordering: .sequentiallyConsistent)
}

/// What reading a descriptor 0 that was closed says.
package let standardInputClosedReason = "cannot read standard input: it is closed"

/// Opens /dev/null on any of descriptors 0, 1 and 2 that the process started without, before
/// anything else is opened: the control socket would otherwise become descriptor 1, and
/// the ids printed for the user would be written to the daemon. Output to a descriptor 1
/// that was closed still fails, as it would have (`StandardStreams`).
package func reserveStandardDescriptors() {
    for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
        if descriptor == 0 { standardInputClosed.store(true, ordering: .sequentiallyConsistent) }
        if descriptor == 1 { standardOutputClosed.store(true, ordering: .sequentiallyConsistent) }
        _ = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
    }
}

/// The process's descriptors 1 and 2, written with `write(2)` directly: no stdio buffer to
/// flush, so ids printed by `send --lines` reach a pipe as soon as they are known.
package struct StandardStreams: OutputSink {
    package init() {}

    package func standardOutput(_ text: String) {
        let failure =
            standardOutputClosed.load(ordering: .sequentiallyConsistent)
            ? EBADF : Self.write(text, to: 1)
        // A closed pipe (`lanchat who | head -1`) is the reader's choice, not an error:
        // the command has nobody left to tell, so it ends there, with 0 (`watch | head -5`
        // ends too). SIGPIPE is ignored (`prepareProcess`), which killed it with 141 (QA:
        // `--json … | head -1` failed `set -o pipefail` scripts). Any other failure
        // (`> /dev/full`, `>&-`) loses data a script relies on, the ids of `send` say: said
        // once, where it happens (a `--lines` stream goes on), and the exit status is 74.
        if failure == EPIPE { exitProcess(0) }
        guard failure != 0,
            standardOutputFailure.compareExchange(
                expected: 0, desired: failure, ordering: .sequentiallyConsistent
            ).exchanged
        else { return }
        _ = Self.write(
            "lanchat: cannot write the output: \(String(cString: strerror(failure)))\n", to: 2)
    }

    package func standardError(_ text: String) { _ = Self.write(text, to: 2) }

    package var outputFailed: Bool {
        standardOutputFailure.load(ordering: .sequentiallyConsistent) != 0
    }

    /// Writes all of `text`; errno of the failure, 0 when it was all written.
    private static func write(_ text: String, to fd: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(
                    fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return written < 0 ? errno : EIO }
                offset += written
            }
            return 0
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
