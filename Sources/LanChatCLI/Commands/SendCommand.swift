import ArgumentParser
import LanChatControl

/// `lanchat send PEER [TEXT…]` → `send`.
///
/// The text is the words joined by one space; without words, or with `-`, standard input to
/// end of file is one message; with `--lines` each non-empty input line is a message, sent
/// while input is still open (see `LineSender`). Everything is validated before the call:
/// bad input exits 65 with nothing sent.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a message to PEER; prints the id of each message stored, one a line.",
        discussion: """
            Returns as soon as lanchatd has stored the message, whether or not the peer is \
            online; a queued message goes out when the peer is back. A message is 1 to 65536 bytes \
            of UTF-8, not only white space and without U+0000 (NUL); otherwise lanchat exits 65 \
            and sends nothing. Standard input read as one message loses its trailing line ends.

            With --lines, blank lines are skipped and a line that is too long or not UTF-8 is \
            reported on standard error and not sent, while the other lines are; lanchat then \
            exits 65 once input ends. A --wait that runs out is reported the same way and the \
            stream goes on; lanchat then exits 75 once input ends. When lanchatd restarts under \
            it, even in the middle of a call, --lines waits for it and sends the lines that came \
            meanwhile, each once (a batch it was given is looked for before it is sent again). \
            With --json, \
            --lines prints each call's result compactly, one object a line.

            A --wait that lanchatd's stop cuts short prints the ids and exits 75: the messages \
            are stored and go out when it runs again; do not send them again.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .sendTargets)
    var peer: String

    @Argument(
        help: ArgumentHelp(
            "The message, words joined by one space. Omitted or -: read standard input.",
            valueName: "text"))
    var words: [String] = []

    @Flag(
        name: .long,
        help: "Send every non-empty line of standard input as its own message, as lines arrive.")
    var lines = false

    @Flag(name: .long, help: "Wait until the peer has received the messages (exit 75 on timeout).")
    var wait = false

    @Flag(name: .long, help: "Wait until the peer has read the messages (exit 75 on timeout).")
    var waitRead = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds --wait and --wait-read wait, at most 86400 (default 30).",
            valueName: "secs"),
        transform: SendCommand.decimalSeconds)
    var timeout: Double?

    /// Seconds written in decimal (`30`, `0.5`): `Double("0x10")` reads hexadecimal and
    /// `1e2` an exponent, which no one means by a number of seconds (found by QA: a timeout
    /// of `0x1.8p0` waited 1.5 s).
    static func decimalSeconds(_ text: String) throws -> Double {
        // A sign is read, so that `-2` is told it is out of range.
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = parts.allSatisfy { $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard digits, parts.contains(where: { !$0.isEmpty }), let value = Double(text) else {
            throw ValidationError("--timeout takes a number of seconds, such as 30 or 0.5")
        }
        return value
    }

    @Flag(
        name: .shortAndLong,
        help: "Print nothing on success (the ids of a wait that ran out are still printed).")
    var quiet = false

    var readsStandardInput: Bool { words.isEmpty || words == ["-"] }

    func validate() throws {
        if lines && !readsStandardInput {
            throw ValidationError("--lines reads standard input; give no TEXT (or -)")
        }
        // Checked here, before connecting: the daemon would refuse it too, but a usage error
        // must not depend on the daemon (and must never follow a stored message).
        if let timeout,
            !(timeout.isFinite && timeout > 0 && timeout <= ParamsLimits.maxTimeoutSeconds)
        {
            throw ValidationError("--timeout must be more than 0 and at most 86400 seconds")
        }
        if timeout != nil && !wait && !waitRead {
            throw ValidationError("--timeout applies to --wait and --wait-read")
        }
    }

    func run() async throws {
        let undecodable = CLIEnvironment.current.undecodableArguments
        try undecodable.check(words, as: "message", outcome: "nothing was sent")
        try undecodable.check([peer], as: "PEER", outcome: "nothing was sent")
        let context = global.makeContext()
        let environment = context.environment
        if lines {
            try await LineSender(command: self, context: context).run()
            return
        }
        let text: String
        if readsStandardInput {
            if environment.standardInputIsTerminal {
                context.err("Type the message, then press Ctrl-D on an empty line.\n")
            }
            text = try await StandardInput.readMessage(from: environment.standardInput)
        } else {
            text = try MessageText.validate(words.joined(separator: " "))
        }
        let result = try await send(texts: nil, text: text, context: context, streaming: false)
        if let keyChange = result.keyChange { context.err(Self.heldWarning(keyChange)) }
    }

    /// Prints a send answer: its ids, or with --json the result, one line a call when
    /// `streaming`. Nothing with -q, unless `evenIfQuiet` (the ids of an error's stored
    /// messages).
    func print(
        _ result: SendResult, context: CommandContext, streaming: Bool, evenIfQuiet: Bool = false
    ) {
        guard !quiet || evenIfQuiet else { return }
        let json =
            context.json
            ? try? (streaming ? JSONOutput.line(result) : JSONOutput.pretty(result)) : nil
        context.out(json ?? result.ids.map { $0 + "\n" }.joined())
    }

    /// Said on standard error, with -q too: the messages are stored, but may never go out.
    static func heldWarning(_ keyChange: KeyChangeInfo) -> String {
        "lanchat: warning: \(terminalSafe(keyChange.heldText))\n"
    }

    /// One `send` call; prints the ids (or the result with `--json`; without it, only the
    /// ids are asked for, which spares a batch of `--lines` its messages' JSON both ways).
    /// When the daemon stored the messages but then timed out or failed, the ids it reports
    /// are printed too, before the error (with `--json` as `{"ids": […]}`), so a script
    /// still learns them. Returns the answer (its key change says the messages are held).
    @discardableResult
    func send(texts: [String]?, text: String?, context: CommandContext, streaming: Bool)
        async throws(ControlError) -> SendResult
    {
        let params = SendParams(
            peer: peer, text: text, texts: texts, wait: wait ? true : nil,
            waitRead: waitRead ? true : nil, timeout: timeout,
            idsOnly: context.json ? nil : true)
        do {
            let result = try await context.client.send(params)
            print(result, context: context, streaming: streaming)
            return result
        } catch {
            // Printed with -q too: it is "nothing on success", and a script needs the ids of
            // stored messages it could not see delivered.
            if let ids = error.data?.messageIDs, !ids.isEmpty {
                // With --json, the shape of a send answer that carries only the ids.
                print(
                    SendResult(ids: ids), context: context, streaming: streaming,
                    evenIfQuiet: true)
            }
            throw error
        }
    }
}
