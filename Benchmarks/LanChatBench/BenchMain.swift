import Foundation
import LanChatCrypto

/// `LanChatBench`: measures the figures of PRODUCT.md §8 on a release build, every one on
/// 127.0.0.1, and prints them as a table and as JSON. Run it through `make bench`
/// (`scripts/bench.sh`), which builds release, gives it the binaries and a private network
/// namespace, and records the table in `docs/benchmarks.md`.
///
/// The figures run one after another, never in parallel: the machine's cores are what is
/// measured. Each figure starts its own daemons in its own directory and stops them.
@main
enum LanChatBench {
    static func main() async {
        let options: BenchOptions
        do {
            options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            if !error.description.isEmpty { printError("LanChatBench: \(error)") }
            printError(BenchOptions.usage)
            exit(error.description.isEmpty ? 0 : 64)
        }
        do {
            try await run(options)
        } catch {
            printError("LanChatBench: \(error)")
            exit(1)
        }
    }

    static func run(_ options: BenchOptions) async throws {
        try Sodium.initialize()
        let scale = options.scale
        let root = options.workDirectory + "/run-\(getpid())"
        try makePrivateDirectory(root)
        defer { removeDirectory(root) }
        let memoryRoot = options.memoryDirectory.map { $0 + "/lanchat-bench-\(getpid())" }
        if let memoryRoot { try makePrivateDirectory(memoryRoot) }
        defer { if let memoryRoot { removeDirectory(memoryRoot) } }
        let before = MachineFacts.read(workDirectory: root)
        var figures: [Figure] = []
        func step(_ number: Int, _ name: String, _ body: () async throws -> [Figure]) async throws {
            guard options.runs(number) else { return }
            // Each figure starts on a quiet disk: figure 8 leaves about a gigabyte of dirty
            // pages (its million-message stores), whose writeback made figure 9's fsyncs
            // wait (p50 6.2 ms in a full run against 3.5 – 5.0 ms alone).
            sync()
            printError("[\(number)] \(name)…")
            let start = ContinuousClock.now
            let measured = try await body()
            figures += measured
            printError("[\(number)] done in \(Figure.format(start.duration(to: .now).seconds)) s")
        }
        let syncProbe = try DiskSyncProbe(directory: root, count: 200).run()
        figures.append(syncProbe)
        try await step(1, "send → delivered, one at a time") {
            try await DeliveryLatencyBench(
                scale: scale, directory: root + "/latency", fdatasync: syncProbe.value,
                memoryDirectory: memoryRoot.map { $0 + "/latency" }
            ).run()
        }
        try await step(2, "throughput, alternating with the bare pipe (3)") {
            try await ThroughputBench(
                scale: scale, directory: root + "/throughput",
                memoryDirectory: memoryRoot.map { $0 + "/throughput" }
            ).run()
        }
        try await step(4, "queued messages after the peer comes back") {
            try await QueuedDeliveryBench(scale: scale, directory: root + "/queued").run()
        }
        try await step(5, "lanchat send / who wall time") {
            try await CLIWallTimeBench(
                scale: scale, directory: root + "/cli", binDirectory: try binDirectory(options)
            ).run()
        }
        try await step(6, "history page in a large conversation") {
            try await HistoryPageBench(scale: scale, directory: root + "/history").run()
        }
        try await step(7, "idle daemon with peers") {
            try await IdleDaemonBench(
                scale: scale, directory: root + "/idle", binDirectory: try binDirectory(options)
            ).run()
        }
        try await step(8, "store: search, inbox, event replay") {
            try await StoreReadingBench(scale: scale, directory: root + "/reading").run()
        }
        try await step(9, "a message to a group of 10 online members") {
            try await GroupDeliveryBench(scale: scale, directory: root + "/group").run()
        }
        let report = Report(
            figures: figures, command: options.command, quick: options.quick, date: Date(),
            machineBefore: before, machineAfter: MachineFacts.read(workDirectory: root),
            timingTool: CommandTimer.hyperfinePath == nil ? "posix_spawn" : "hyperfine -N")
        let json = try report.json()
        print(report.text)
        print(String(decoding: json, as: UTF8.self))
        if let path = options.jsonPath {
            try json.write(to: URL(fileURLWithPath: path))
        }
        // Only a full run replaces the recorded table; a partial or quick one would leave it
        // with figures missing or not comparable.
        if let path = options.markdownPath {
            if options.only.isEmpty && !options.quick {
                try report.writeMarkdown(to: path)
                printError("results table written to \(path)")
            } else {
                printError("partial or --quick run: \(path) left as it was")
            }
        }
    }

    /// Figures 5 and 7 run the release binaries.
    static func binDirectory(_ options: BenchOptions) throws -> String {
        guard let directory = options.binDirectory,
            FileManager.default.isExecutableFile(atPath: directory + "/lanchatd"),
            FileManager.default.isExecutableFile(atPath: directory + "/lanchat")
        else {
            throw BenchError.usage(
                "--bin-dir must name the directory of the release lanchatd and lanchat")
        }
        return directory
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
