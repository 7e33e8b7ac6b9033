import ArgumentParser
import FoundationEssentials
import LanChatClient
import LanChatControl

extension ColorChoice: ExpressibleByArgument {}

/// Options every command takes (`lanchat --json who` and `lanchat who --json` both work).
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The control socket of lanchatd (default: $LANCHAT_SOCKET, else "
                + "$XDG_RUNTIME_DIR/lanchat/lanchatd.sock, else /tmp/lanchat-$UID/lanchatd.sock).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    // Shown in every command's help, so it says where it does not apply (found by QA).
    @Flag(
        name: .long,
        help: "Print the control API's result object as JSON (not for chat, which has none).")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Colour text output: auto (only on a terminal, and not when NO_COLOR is set), "
                + "always or never.",
            valueName: "when"))
    var color: ColorChoice = .auto

    /// An empty `--socket` (a script's empty variable) would mean the default socket: perhaps
    /// another daemon than the one meant. A usage error instead (64).
    func validate() throws {
        if let socket, socket.isEmpty {
            throw ValidationError("--socket is empty; give the path of lanchatd's control socket")
        }
    }

    /// Everything a command needs to call the daemon and print, resolved once.
    func makeContext() -> CommandContext {
        let environment = CLIEnvironment.current
        let path = ControlSocketPath.resolve(
            explicit: socket, environment: environment.variables, uid: environment.uid)
        let hints = DaemonHints.forSocket(
            path, userServiceSocket: ControlSocketPath.userService(environment: environment))
        return CommandContext(
            client: ControlClient(socketPath: path, hints: hints),
            json: json,
            style: color.resolve(
                outputIsTerminal: environment.outputIsTerminal, variables: environment.variables),
            environment: environment)
    }
}

/// What a running command uses: the client, the output choices and the environment.
struct CommandContext {
    let client: ControlClient
    let json: Bool
    let style: TextStyle
    let environment: CLIEnvironment

    var now: Timestamp { environment.now() }
    var zone: any UTCOffsetProvider { environment.utcOffset }

    func out(_ text: String) { environment.output.standardOutput(text) }
    func err(_ text: String) { environment.output.standardError(text) }

    /// `--json`: the result object exactly as the API returned it, pretty with sorted keys.
    /// Otherwise the text rendering.
    func show<Result: Encodable>(_ result: Result, text: (Result) -> String) throws(ControlError) {
        out(json ? try JSONOutput.pretty(result) : text(result))
    }
}

enum JSONOutput {
    static func pretty<Value: Encodable>(_ value: Value) throws(ControlError) -> String {
        try encode(value, with: ControlJSON.prettyEncoder())
    }

    /// One object on one line, for streams (`send --lines --json`).
    static func line<Value: Encodable>(_ value: Value) throws(ControlError) -> String {
        try encode(value, with: ControlJSON.encoder())
    }

    private static func encode<Value: Encodable>(_ value: Value, with encoder: JSONEncoder)
        throws(ControlError) -> String
    {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
        } catch {
            throw .internalError("cannot encode the result as JSON: \(error)")
        }
    }
}
