import Glibc

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
    ///
    /// Newlines are found with `memchr`: a 1 000-message `send` answer is some 350 KB, and
    /// looking at it byte by byte cost the client a third of a millisecond per call.
    package mutating func append(_ chunk: some Collection<UInt8>) throws(Failure) -> [[UInt8]] {
        pending.append(contentsOf: chunk)
        var lines: [[UInt8]] = []
        var lineStart = 0
        pending.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            var index = scanned
            while index < bytes.count,
                let found = memchr(base + index, Int32(UInt8(ascii: "\n")), bytes.count - index)
            {
                let end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                lines.append(Array(bytes[lineStart..<end]))
                lineStart = end + 1
                index = lineStart
            }
        }
        guard !lines.contains(where: { $0.count > maxLineBytes }) else {
            throw .lineTooLong(limit: maxLineBytes)
        }
        if lineStart > 0 {
            pending.removeFirst(lineStart)
        }
        scanned = pending.count
        guard pending.count <= maxLineBytes else { throw .lineTooLong(limit: maxLineBytes) }
        return lines
    }
}
