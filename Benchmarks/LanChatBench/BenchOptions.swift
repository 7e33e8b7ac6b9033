import Foundation

/// What `LanChatBench` was asked to do, from its command line. `scripts/bench.sh` (run by
/// `make bench`) passes the release binaries' directory, a work directory on the disk the
/// store would live on, and where to write the results.
struct BenchOptions: Sendable {
    /// Where `lanchatd` and `lanchat` (release) are; figures 5 and 7 need them.
    var binDirectory: String?
    /// Data directories, sockets and stores of every daemon the run starts; removed at the end.
    var workDirectory = FileManager.default.currentDirectoryPath + "/.build/bench"
    /// A directory in memory (tmpfs) for the context rows that run figures 1 and 2 again with
    /// both stores there, so the run shows what is left of them when the disk costs nothing.
    /// Default: `/dev/shm` when it is a tmpfs; `--memory-dir none` leaves those rows out.
    var memoryDirectory: String? =
        MachineFacts.fileSystemType(of: "/dev/shm") == "tmpfs" ? "/dev/shm" : nil
    /// The results table is written between the markers of this Markdown file.
    var markdownPath: String?
    /// The results as JSON (also printed to standard output).
    var jsonPath: String?
    /// The exact command that reproduces the run, recorded in the Markdown.
    var command = "make bench"
    /// Smaller sizes, for checking the harness itself; the figures are then not the real ones.
    var quick = false
    /// Figure numbers (1–9) to run; empty: all.
    var only: Set<Int> = []

    var scale: BenchScale { quick ? .quick : .full }

    func runs(_ figure: Int) -> Bool { only.isEmpty || only.contains(figure) }

    static let usage = """
        usage: LanChatBench [--bin-dir DIR] [--work-dir DIR] [--memory-dir DIR|none]
                            [--markdown FILE] [--json FILE] [--command TEXT] [--quick]
                            [--only 1,2,...]
        Measures the figures of PRODUCT.md §8 on 127.0.0.1 (run it through `make bench`).
        """

    /// Parses `arguments` (without the program name). Unknown options are an error.
    static func parse(_ arguments: [String]) throws(BenchError) -> BenchOptions {
        var options = BenchOptions()
        var rest = arguments[...]
        func value(for option: String) throws(BenchError) -> String {
            guard let next = rest.popFirst() else { throw .usage("\(option) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--bin-dir": options.binDirectory = try value(for: argument)
            case "--work-dir": options.workDirectory = try value(for: argument)
            case "--memory-dir":
                let directory = try value(for: argument)
                guard directory == "none" || MachineFacts.fileSystemType(of: directory) == "tmpfs"
                else { throw .usage("--memory-dir must be on a tmpfs (or: none)") }
                options.memoryDirectory = directory == "none" ? nil : directory
            case "--markdown": options.markdownPath = try value(for: argument)
            case "--json": options.jsonPath = try value(for: argument)
            case "--command": options.command = try value(for: argument)
            case "--quick": options.quick = true
            case "--only":
                let list = try value(for: argument).split(separator: ",")
                let numbers = list.compactMap { Int($0) }.filter { (1...9).contains($0) }
                guard numbers.count == list.count else {
                    throw .usage("--only takes figure numbers 1 to 9, e.g. --only 1,3")
                }
                options.only = Set(numbers)
            case "-h", "--help": throw .usage("")
            default: throw .usage("unknown argument \(argument)")
            }
        }
        return options
    }
}

/// How much work each figure does. `full` is what PRODUCT.md §8 asks for; `quick` only
/// checks that the harness works.
struct BenchScale: Sendable {
    var latencyWarmup: Int
    var latencySends: Int
    var throughputMessages: Int
    var throughputRuns: Int
    var queuedMessages: Int
    var cliWarmup: Int
    var cliRuns: Int
    var historyMessages: Int
    var historyCalls: Int
    var idlePeers: Int
    var idleSeconds: Int
    var searchMessages: Int
    var searchCalls: Int
    var inboxConversations: Int
    var replayEvents: Int

    static let full = BenchScale(
        latencyWarmup: 100, latencySends: 1_000, throughputMessages: 100_000, throughputRuns: 3,
        queuedMessages: 10_000, cliWarmup: 10, cliRuns: 100, historyMessages: 1_000_000,
        historyCalls: 1_000, idlePeers: 50, idleSeconds: 30, searchMessages: 1_000_000,
        searchCalls: 200, inboxConversations: 1_000, replayEvents: 200_000)

    static let quick = BenchScale(
        latencyWarmup: 20, latencySends: 200, throughputMessages: 20_000, throughputRuns: 1,
        queuedMessages: 10_000, cliWarmup: 3, cliRuns: 20, historyMessages: 50_000,
        historyCalls: 200, idlePeers: 10, idleSeconds: 5, searchMessages: 50_000,
        searchCalls: 50, inboxConversations: 1_000, replayEvents: 50_000)
}

/// A failure of the benchmark itself (not a figure that misses its target).
struct BenchError: Error, CustomStringConvertible {
    enum Kind { case usage, setup, failed }
    let kind: Kind
    let description: String

    static func usage(_ message: String) -> BenchError { .init(kind: .usage, description: message) }
    static func setup(_ message: String) -> BenchError { .init(kind: .setup, description: message) }
    static func failed(_ message: String) -> BenchError {
        .init(kind: .failed, description: message)
    }
}
