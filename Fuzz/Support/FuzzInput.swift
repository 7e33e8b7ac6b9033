/// A cursor over one fuzz input that never fails: past the end it yields zeros and empty
/// arrays, so a harness can read a structured "program" from any byte string without a single
/// error path of its own. Owned by one harness call, on libFuzzer's thread.
package struct FuzzInput {
    package let bytes: [UInt8]
    package private(set) var offset = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        self.bytes = Array(UnsafeBufferPointer(start: data, count: max(size, 0)))
    }

    package var isAtEnd: Bool { offset >= bytes.count }
    package var remaining: Int { max(bytes.count - offset, 0) }

    package mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u16() -> UInt16 {
        UInt16(byte()) << 8 | UInt16(byte())
    }

    package mutating func u32() -> UInt32 {
        UInt32(u16()) << 16 | UInt32(u16())
    }

    package mutating func u64() -> UInt64 {
        UInt64(u32()) << 32 | UInt64(u32())
    }

    /// Up to `count` bytes (fewer at the end of the input).
    package mutating func take(_ count: Int) -> [UInt8] {
        let end = min(offset + max(count, 0), bytes.count)
        guard offset < end else { return [] }
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// Everything not read yet.
    package mutating func rest() -> [UInt8] {
        take(remaining)
    }
}

/// Splits `bytes` into the chunks a socket might deliver: `selector` 0 delivers everything at
/// once, otherwise chunk sizes cycle through a small pattern derived from it (1 byte, odd
/// sizes, sizes that straddle length prefixes), so partial reads are exercised deterministically.
/// After `limit` chunks the rest comes in one piece, so a 1 MiB stream is not read bytewise.
package func fuzzChunks(_ bytes: [UInt8], selector: UInt8, limit: Int = 2048)
    -> [ArraySlice<UInt8>]
{
    guard selector != 0 else { return [bytes[...]] }
    let pattern = [Int(selector), 1, Int(selector % 7) + 1, 2, Int(selector) * 3 + 5]
    var chunks: [ArraySlice<UInt8>] = []
    var start = 0
    var step = 0
    while start < bytes.count {
        let size = step < limit ? max(pattern[step % pattern.count], 1) : bytes.count
        let end = min(bytes.count, start + size)
        chunks.append(bytes[start..<end])
        start = end
        step += 1
    }
    return chunks
}
