/// Splits a byte stream into newline-terminated lines, the framing of the control protocol
/// (one JSON document per line). Owned by one reader at a time; not thread-safe.
package struct LineSplitter {
    /// A response line longer than this (without its newline) is refused: 16 MiB.
    package static let defaultMaxLineBytes = 16 << 20

    package enum Failure: Error, Equatable {
        /// A line grew past the limit before its newline arrived.
        case lineTooLong(limit: Int)
    }

    package let maxLineBytes: Int
    private var pending: [UInt8] = []
    /// Where to resume looking for a newline in `pending`, so a long line arriving in many
    /// chunks is scanned once.
    private var scanned = 0

    package init(maxLineBytes: Int = LineSplitter.defaultMaxLineBytes) {
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes received that do not end a line yet; at end of stream they are a truncated line.
    package var hasPartialLine: Bool { !pending.isEmpty }

    /// Appends a chunk and returns the lines it completed, without their newlines.
    package mutating func append(_ chunk: some Collection<UInt8>) throws(Failure) -> [[UInt8]] {
        pending.append(contentsOf: chunk)
        var lines: [[UInt8]] = []
        var lineStart = 0
        var index = scanned
        while index < pending.count {
            if pending[index] == UInt8(ascii: "\n") {
                let line = Array(pending[lineStart..<index])
                guard line.count <= maxLineBytes else { throw .lineTooLong(limit: maxLineBytes) }
                lines.append(line)
                lineStart = index + 1
            }
            index += 1
        }
        if lineStart > 0 {
            pending.removeFirst(lineStart)
        }
        scanned = pending.count
        guard pending.count <= maxLineBytes else { throw .lineTooLong(limit: maxLineBytes) }
        return lines
    }
}
