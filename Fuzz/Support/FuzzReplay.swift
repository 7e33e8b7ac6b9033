#if canImport(Glibc)
    import Glibc
#endif

/// The `main` of a fuzz target when it is built *without* libFuzzer (the ordinary `swift
/// build`): the same harness, run over inputs on disk instead of generated ones. It replays
/// corpora and crash artifacts under a debugger-friendly, unsanitized build, and writes the
/// seed corpus from the real encoders:
///
///     FuzzAppCodec FILE|DIR…                 run the harness on every file (DIRs recursively)
///     FuzzAppCodec --write-seeds DIR         write the target's named seeds into DIR
///
/// Runs on the main thread only; exits 0 when every input passed (a broken property aborts).
package enum FuzzReplay {
    package static func main(
        seeds: () -> [(name: String, bytes: [UInt8])], harness: ([UInt8]) -> Void
    ) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--write-seeds", arguments.count == 2 {
            let directory = arguments[1]
            _ = mkdir(directory, 0o755)
            let all = seeds()
            for seed in all {
                // Every seed must pass its own harness before it is committed as a seed.
                harness(seed.bytes)
                guard writeFile(directory + "/" + seed.name, seed.bytes) else {
                    fail("cannot write \(directory)/\(seed.name)")
                }
            }
            printError("wrote \(all.count) seeds to \(directory)")
            exit(0)
        }
        guard !arguments.isEmpty, !arguments.contains(where: { $0.hasPrefix("-") }) else {
            printError(
                "usage: \(CommandLine.arguments.first ?? "fuzz-target") FILE|DIR… | --write-seeds DIR"
                    + "\n(built without libFuzzer: this binary replays inputs; build with"
                    + " scripts/fuzz.sh to fuzz)")
            exit(2)
        }
        var count = 0
        for path in arguments {
            for file in files(under: path) {
                guard let bytes = readFile(file) else { fail("cannot read \(file)") }
                harness(bytes)
                count += 1
            }
        }
        printError("replayed \(count) inputs: every property held")
        exit(0)
    }

    static func fail(_ message: String) -> Never {
        printError(message)
        exit(1)
    }

    static func printError(_ message: String) {
        var bytes = Array((message + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// `path` itself when it is a file; every regular file below it when it is a directory.
    static func files(under path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var result: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            result += files(under: path + "/" + name)
        }
        return result.sorted()
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return result }
            result += chunk[0..<count]
        }
    }

    static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                write(descriptor, $0.baseAddress.map { $0 + written }, bytes.count - written)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
