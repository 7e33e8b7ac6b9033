import LanChatControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything a command reads from the process besides its arguments: environment variables,
/// the clock, the time zone, standard input and output. Commands read `CLIEnvironment.current`
/// and nothing else, so a test can run a whole command in-process with a fixed "now", a fixed
/// time zone, a pipe for standard input and captured output.
package struct CLIEnvironment: Sendable {
    /// The variables the CLI looks at (`LANCHAT_SOCKET`, `XDG_RUNTIME_DIR`, `NO_COLOR`, …).
    package var variables: [String: String]
    package var uid: UInt32
    package var now: @Sendable () -> Timestamp
    package var utcOffset: any UTCOffsetProvider
    /// Descriptor that `send` reads messages from.
    package var standardInput: Int32
    package var standardInputIsTerminal: Bool
    package var output: any OutputSink
    /// Whether standard output is a terminal (`--color auto`).
    package var outputIsTerminal: Bool
    /// The terminal's columns when standard output is one (`COLUMNS` when set, else the
    /// window's size); nil for a pipe or a file, whose lines are never cut.
    package var outputWidth: Int?
    /// The arguments that were not valid UTF-8 (see `UndecodableArguments`).
    package var undecodableArguments: UndecodableArguments
    /// Whether `watch` may take over SIGINT and SIGTERM (the real process only: a test
    /// running commands in-process keeps its own signal handling).
    package var handlesSignals: Bool

    package init(
        variables: [String: String], uid: UInt32, now: @escaping @Sendable () -> Timestamp,
        utcOffset: any UTCOffsetProvider, standardInput: Int32, standardInputIsTerminal: Bool,
        output: any OutputSink, outputIsTerminal: Bool,
        undecodableArguments: UndecodableArguments = UndecodableArguments(),
        handlesSignals: Bool = false, outputWidth: Int? = nil
    ) {
        self.variables = variables
        self.uid = uid
        self.now = now
        self.utcOffset = utcOffset
        self.standardInput = standardInput
        self.standardInputIsTerminal = standardInputIsTerminal
        self.output = output
        self.outputIsTerminal = outputIsTerminal
        self.undecodableArguments = undecodableArguments
        self.handlesSignals = handlesSignals
        self.outputWidth = outputWidth
    }

    /// Set by tests with `CLIEnvironment.$current.withValue(…)`; the real process otherwise.
    @TaskLocal package static var current = CLIEnvironment.process

    /// The running process: real environment, clock, local time zone and standard streams.
    package static var process: CLIEnvironment {
        let variables = readVariables()
        let outputIsTerminal = isatty(1) == 1
        return CLIEnvironment(
            variables: variables, uid: UInt32(getuid()), now: systemNow,
            utcOffset: SystemUTCOffset(), standardInput: 0,
            standardInputIsTerminal: isatty(0) == 1, output: StandardStreams(),
            outputIsTerminal: outputIsTerminal, undecodableArguments: .ofProcess(),
            handlesSignals: true,
            outputWidth: outputIsTerminal ? terminalWidth(variables["COLUMNS"]) : nil)
    }

    /// `COLUMNS` when it is a number, else the window's width (TIOCGWINSZ on standard output).
    private static func terminalWidth(_ columns: String?) -> Int? {
        if let columns, let value = Int(columns), value > 0 { return value }
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Only the variables the CLI uses, read with `getenv` (cheaper than copying `environ`).
    /// HOME and XDG_DATA_HOME name the default data directory, whose lock doctor looks at.
    static let knownVariables = [
        ControlSocketPath.environmentVariable, "XDG_RUNTIME_DIR", "NO_COLOR", "TERM", "COLUMNS",
        "HOME", "XDG_DATA_HOME",
    ]

    private static func readVariables() -> [String: String] {
        var variables: [String: String] = [:]
        for name in knownVariables {
            if let value = getenv(name) {
                variables[name] = String(cString: value)
            }
        }
        return variables
    }

    @Sendable private static func systemNow() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Timestamp(
            millisecondsSince1970: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }
}

extension ControlSocketPath {
    /// The socket of the systemd user service's lanchatd: the default without `--socket` or
    /// `LANCHAT_SOCKET`, the one `systemctl --user` acts on.
    static func userService(environment: CLIEnvironment) -> String {
        directory(environment: environment.variables, uid: environment.uid) + "/" + fileName
    }
}
