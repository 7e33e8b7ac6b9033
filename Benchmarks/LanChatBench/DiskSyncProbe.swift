import Glibc

/// Context for figures 1, 2 and 4: what one durable commit costs on the disk the stores
/// are on. Appends 100 bytes to a file and calls `fdatasync` (what SQLite does at each
/// commit with `synchronous=FULL` in WAL mode), `count` times.
struct DiskSyncProbe {
    let directory: String
    let count: Int

    func run() throws -> Figure {
        let path = directory + "/fsync-probe"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BenchError.setup("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer {
            close(descriptor)
            unlink(path)
        }
        let block = [UInt8](repeating: 0x61, count: 100)
        var samples = Samples()
        for _ in 0..<count {
            let start = ContinuousClock.now
            let written = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == block.count, fdatasync(descriptor) == 0 else {
                throw BenchError.setup("write or fdatasync failed on \(path)")
            }
            samples.append(start.duration(to: .now).milliseconds)
        }
        return Figure(
            key: "disk_fdatasync_ms", group: 0,
            title: "context: one 100-byte append + fdatasync on the stores' disk",
            value: samples.median, unit: "ms", target: nil,
            note:
                "\(count.grouped) times; median (p99 in JSON). Each durable commit pays at least this",
            details: samples.summary)
    }
}
