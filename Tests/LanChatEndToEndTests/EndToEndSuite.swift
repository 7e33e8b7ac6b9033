import Foundation
import Testing

/// The built `lanchatd` and `lanchat` as separate processes on 127.0.0.1, driven and
/// observed the way a user or a script would: exit codes, `--json` output, log lines and the
/// bytes on the wire (issue "walking skeleton" acceptance).
///
/// The binaries come from `LANCHAT_BIN_DIR`, else the test bundle's directory. Every test
/// has its own sandbox (directories, sockets, ports) and kills what it started.
///
/// Serialized: the suite measures time (send → delivered within 1 s, stop within 2 s) on a
/// shared two-core machine, and its tests running one at a time keeps those figures about
/// lanchat rather than about the other tests' daemons.
@Suite(.serialized) enum EndToEnd {}

/// Formats a duration in milliseconds for the printed figures.
func milliseconds(_ duration: Duration) -> String {
    let value =
        Double(duration.components.seconds) * 1000
        + Double(duration.components.attoseconds) / 1e15
    return String(format: "%.1f ms", value)
}
