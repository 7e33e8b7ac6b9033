import LanChatCLI
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `lanchat` in-process with a fixed clock and zone, captured output, no terminal, and
/// the given socket and standard input.
enum TestEnvironment {
    static func make(
        socket: String? = nil, standardInput: Int32 = -1, output: CapturedOutput,
        variables: [String: String] = [:]
    ) -> CLIEnvironment {
        var variables = variables
        // Never the developer's real daemon: without a socket, an address that cannot exist.
        variables["LANCHAT_SOCKET"] = socket ?? "/nonexistent/lanchat-test.sock"
        return CLIEnvironment(
            variables: variables, uid: 4242, now: { CLIFixtures.now },
            utcOffset: FixedUTCOffset(seconds: 0), standardInput: standardInput,
            standardInputIsTerminal: false, output: output, outputIsTerminal: false)
    }

    static func run(
        _ arguments: [String], socket: String? = nil, standardInput: Int32 = -1,
        output: CapturedOutput, variables: [String: String] = [:]
    ) async -> Int32 {
        let environment = make(
            socket: socket, standardInput: standardInput, output: output, variables: variables)
        return await CLIEnvironment.$current.withValue(environment) {
            await LanChatCLI.run(arguments)
        }
    }
}

/// A pipe standing in for standard input. The test writes and closes `writeEnd`.
final class InputPipe: @unchecked Sendable {
    let readEnd: Int32
    private(set) var writeEnd: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    /// A pipe already holding `bytes`, its write end closed (at most the pipe's 64 KiB).
    convenience init(closedWith bytes: [UInt8]) {
        self.init()
        write(bytes)
        closeWriteEnd()
    }

    func write(_ text: String) { write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.write(writeEnd, $0.baseAddress.map { $0 + offset }, $0.count - offset)
            }
            guard written > 0 else { return }
            offset += written
        }
    }

    func closeWriteEnd() {
        if writeEnd >= 0 {
            close(writeEnd)
            writeEnd = -1
        }
    }

    deinit {
        closeWriteEnd()
        close(readEnd)
    }
}
