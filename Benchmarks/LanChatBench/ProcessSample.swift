import Foundation
import Glibc

/// A process's memory and CPU time as the kernel reports them in /proc.
struct ProcessSample: Sendable {
    /// VmRSS: resident memory now.
    var residentKilobytes: Int
    /// VmHWM: the highest resident memory so far.
    var peakResidentKilobytes: Int
    /// utime + stime, in seconds.
    var cpuSeconds: Double
    /// Number of threads.
    var threads: Int
    /// RssAnon and RssFile: private memory, and pages of mapped files (the Swift runtime,
    /// Foundation and other shared libraries, counted in RSS though shared with others).
    var anonymousKilobytes: Int
    var fileKilobytes: Int

    static func read(pid: Int32) -> ProcessSample? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        else { return nil }
        var fields: [String: Int] = [:]
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let number = parts[1].split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
            fields[String(parts[0])] = number
        }
        // The command name (field 2) is in parentheses and may contain spaces: count the
        // fields after its closing parenthesis. utime and stime are fields 14 and 15.
        guard let close = stat.lastIndex(of: ")"),
            let rss = fields["VmRSS"], let peak = fields["VmHWM"], let threads = fields["Threads"]
        else { return nil }
        let after = stat[stat.index(after: close)...].split(separator: " ")
        guard after.count > 13, let user = Double(after[11]), let system = Double(after[12])
        else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ProcessSample(
            residentKilobytes: rss, peakResidentKilobytes: peak,
            cpuSeconds: (user + system) / (ticks > 0 ? ticks : 100), threads: threads,
            anonymousKilobytes: fields["RssAnon"] ?? 0, fileKilobytes: fields["RssFile"] ?? 0)
    }
}
