import Foundation
import Glibc

/// Wall time of a short command, run many times: with hyperfine when it is installed
/// (`--shell=none`, so no shell start-up is counted), else by spawning it ourselves with
/// `posix_spawn` and timing each run to its exit. Standard output and error go to
/// /dev/null in both cases.
struct CommandTimer {
    let warmup: Int
    let runs: Int
    let scratchDirectory: String

    /// The tool that did the timing, for the report.
    var toolName: String { Self.hyperfinePath == nil ? "posix_spawn timing" : "hyperfine -N" }

    /// Milliseconds of each run.
    func time(_ arguments: [String]) async throws -> Samples {
        if let hyperfine = Self.hyperfinePath {
            return try await timeWithHyperfine(hyperfine, arguments)
        }
        for _ in 0..<warmup { _ = try Self.spawnAndWait(arguments) }
        var samples = Samples()
        for _ in 0..<runs {
            let start = ContinuousClock.now
            let status = try Self.spawnAndWait(arguments)
            samples.append(start.duration(to: .now).milliseconds)
            guard status == 0 else {
                throw BenchError.failed("\(arguments.joined(separator: " ")) exited \(status)")
            }
        }
        return samples
    }

    static let hyperfinePath: String? = ["/usr/bin/hyperfine", "/usr/local/bin/hyperfine"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    private struct HyperfineExport: Decodable {
        struct Result: Decodable {
            let times: [Double]
            let exitCodes: [Int?]?

            enum CodingKeys: String, CodingKey {
                case times
                case exitCodes = "exit_codes"
            }
        }
        let results: [Result]
    }

    private func timeWithHyperfine(_ hyperfine: String, _ arguments: [String]) async throws
        -> Samples
    {
        let export = scratchDirectory + "/hyperfine-\(UUID().uuidString.prefix(8)).json"
        // hyperfine splits the command on white space; the arguments here have none.
        let command = arguments.joined(separator: " ")
        let status = try Self.spawnAndWait([
            hyperfine, "-N", "--warmup", String(warmup), "--runs", String(runs), "--style",
            "none", "--export-json", export, command,
        ])
        guard status == 0 else {
            throw BenchError.failed("hyperfine exited \(status) for \(command)")
        }
        defer { try? FileManager.default.removeItem(atPath: export) }
        let data = try Data(contentsOf: URL(fileURLWithPath: export))
        let decoded = try JSONDecoder().decode(HyperfineExport.self, from: data)
        guard let result = decoded.results.first else {
            throw BenchError.failed("hyperfine exported no result for \(command)")
        }
        if let codes = result.exitCodes, codes.contains(where: { $0 != 0 }) {
            throw BenchError.failed("\(command) failed in some hyperfine runs")
        }
        return Samples(result.times.map { $0 * 1_000 })
    }

    /// Spawns `arguments[0]` with the rest as arguments, waits for it, returns its exit
    /// status (or 128 + signal). Blocks the calling thread while the child runs: figure 5
    /// runs nothing else in this process meanwhile (its daemons are child processes).
    static func spawnAndWait(_ arguments: [String]) throws -> Int32 {
        guard let program = arguments.first else { throw BenchError.setup("empty command") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchError.setup("cannot run \(program): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchError.setup("waitpid failed for \(pid)") }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
