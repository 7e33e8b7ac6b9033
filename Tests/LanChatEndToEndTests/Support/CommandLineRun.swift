import Foundation
import Testing

/// What one run of `lanchat` showed its user.
struct CommandResult: Sendable, CustomStringConvertible {
    var termination: Termination
    var standardOutput: Data
    var standardError: String

    /// The exit status, or -1 when it was killed by a signal.
    var status: Int32 {
        if case .exited(let status) = termination { return status }
        return -1
    }

    var output: String { String(decoding: standardOutput, as: UTF8.self) }

    var description: String {
        "lanchat ended with \(termination); stdout: \(output.debugDescription); "
            + "stderr: \(standardError.debugDescription)"
    }

    /// `--json` output decoded as `T`.
    func decoded<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: standardOutput)
        } catch {
            throw SandboxError(description: "cannot decode \(T.self) (\(error)) from \(self)")
        }
    }
}

extension Sandbox {
    /// Longest a single `lanchat` run may take before the test kills it and fails.
    static let commandTimeout: Duration = .seconds(15)

    /// Runs the built `lanchat` with `arguments` to its end. Standard input comes from
    /// `input` (`nil`: /dev/null); output and errors go through files in the sandbox, so a
    /// large output can never block the child on a full pipe. With a `launcher` (a program
    /// and its first arguments), that program runs with the binary's path and `arguments`
    /// after its own: a shell can then pass bytes a Swift string cannot hold.
    func lanchat(_ arguments: [String], input: Data? = nil, launcher: [String] = [])
        async throws -> CommandResult
    {
        let binary = try Binaries.lanchat()
        let run = UUID().uuidString.prefix(8)
        let outPath = file("cli-\(run).out")
        let errPath = file("cli-\(run).err")
        let inPath = file("cli-\(run).in")
        defer {
            for scratch in [outPath, errPath, inPath] {
                try? FileManager.default.removeItem(atPath: scratch)
            }
        }
        guard FileManager.default.createFile(atPath: outPath, contents: nil),
            FileManager.default.createFile(atPath: errPath, contents: nil),
            FileManager.default.createFile(atPath: inPath, contents: input ?? Data())
        else {
            throw SandboxError(description: "cannot create the capture files in \(path)")
        }
        let stdout = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let stdin = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        defer {
            try? stdout.close()
            try? stderr.close()
            try? stdin.close()
        }
        let child = try ChildProcess.launch(
            launcher.first ?? binary,
            Array(launcher.dropFirst()) + (launcher.isEmpty ? [] : [binary]) + arguments,
            environment: childEnvironment,
            standardInput: input == nil ? nil : stdin, standardOutput: stdout,
            standardError: stderr)
        adopt(child)
        guard let termination = await child.waitForExit(within: Self.commandTimeout) else {
            child.send(SIGKILL)
            throw SandboxError(
                description: "`lanchat \(arguments.joined(separator: " "))` still ran after "
                    + "\(Self.commandTimeout); killed")
        }
        return CommandResult(
            termination: termination,
            standardOutput: FileManager.default.contents(atPath: outPath) ?? Data(),
            standardError: String(
                decoding: FileManager.default.contents(atPath: errPath) ?? Data(),
                as: UTF8.self))
    }

    /// `lanchat --socket SOCKET ARGS… --json`, which must exit 0, decoded as `T`.
    func lanchatJSON<T: Decodable>(
        _ type: T.Type = T.self, socket: String, _ arguments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> T {
        let result = try await lanchat(["--socket", socket] + arguments + ["--json"])
        try #require(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        return try result.decoded(T.self)
    }
}
