import Foundation
import Glibc

/// Creates `path` (and its parents) with mode 0700, as the daemon wants its directories.
func makePrivateDirectory(_ path: String) throws {
    try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    chmod(path, 0o700)
}

/// Removes a directory tree the benchmark made; a failure only leaves files behind.
func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Facts about the machine that a reader needs to judge the figures: cores, load (other
/// work on the machine shares the cores), kernel, and the file system the stores were on.
struct MachineFacts: Sendable {
    var cores: Int
    var loadAverage: String
    var kernel: String
    var fileSystem: String

    static func read(workDirectory: String) -> MachineFacts {
        MachineFacts(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            loadAverage: firstLine("/proc/loadavg").split(separator: " ").prefix(3).joined(
                separator: " "),
            kernel: firstLine("/proc/sys/kernel/osrelease"),
            fileSystem: fileSystemType(of: workDirectory))
    }

    static func firstLine(_ path: String) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "?" }
        return text.split(separator: "\n").first.map(String.init) ?? ""
    }

    /// The type (`ext4`, `tmpfs`…) of the longest mount point that contains `path`; it
    /// decides what an fsync costs.
    static func fileSystemType(of path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)
        else { return "?" }
        var best: (point: String, type: String) = ("", "?")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = String(fields[1])
            let inside = path == point || path.hasPrefix(point == "/" ? "/" : point + "/")
            if inside && point.count >= best.point.count { best = (point, String(fields[2])) }
        }
        return best.type
    }
}
