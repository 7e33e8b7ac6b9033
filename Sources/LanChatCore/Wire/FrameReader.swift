/// One connection's input side: collects, from bytes in any chunking, either a fixed-size item
/// (the preamble) or a `u16 BE length ‖ body` frame whose length is checked against the
/// caller's bounds *before* a single body byte is taken (PROTOCOL.md §4.5).
///
/// The body buffer is allocated once, at 65 535 bytes, on the first read; it never grows and
/// nothing is allocated from a length the peer chose. It is reserved, not filled: only the
/// pages that frames have been written to become resident, so an idle connection, whose
/// frames are keepalives of a few dozen bytes, costs a page or two of it instead of 64 KB
/// (docs/benchmarks.md, figure 7). Owned by one connection and used from one task at a time
/// (a value type: the owner's `mutating` calls serialise access).
public struct FrameReader: Sendable {
    /// What the next item is.
    public enum Expectation: Equatable, Sendable {
        /// Exactly `count` raw bytes, no length prefix (1…65 535).
        case fixed(Int)
        /// A length prefix that must lie within the bounds, then that many bytes.
        case prefixed(ClosedRange<Int>)
    }

    /// The one way reading fails: a length prefix outside the expected bounds.
    public struct LengthError: Error, Equatable, Sendable {
        public let length: Int

        public init(length: Int) { self.length = length }
    }

    /// The current item's body bytes (`count` is what has been taken so far), in a capacity
    /// of at least 65 535 reserved on the first read.
    private var buffer: [UInt8] = []
    private var filled: Int { buffer.count }
    /// Bytes of the length prefix collected so far (0, 1 or 2) and their value.
    private var prefixCount = 0
    private var prefixValue = 0
    /// The body length once the prefix is validated (or the fixed size); nil before that.
    private var target: Int?
    /// True once an item is complete; the next `read` starts a new one.
    private var complete = false

    /// Makes a reader without memory; the 65 535-byte buffer is allocated on the first read,
    /// so a reader can be handed from the handshake to the opener without a second buffer.
    public init() {}

    /// Takes bytes from `input[offset...]`, advancing `offset`, until the expected item is
    /// complete (returns true; read it with `item`/`withItem` before the next call) or the
    /// input is used up (returns false; call again with more bytes and the same expectation).
    /// Throws before consuming any body byte when a length prefix is out of bounds.
    public mutating func read(
        _ input: UnsafeRawBufferPointer, offset: inout Int, expecting expectation: Expectation
    ) throws(LengthError) -> Bool {
        if complete { reset() }
        if buffer.capacity < WireLimits.maximumFrameLength {
            buffer.reserveCapacity(WireLimits.maximumFrameLength)
        }
        if target == nil {
            switch expectation {
            case .fixed(let count):
                target = min(max(count, 0), WireLimits.maximumFrameLength)
            case .prefixed(let bounds):
                while prefixCount < 2, offset < input.count {
                    prefixValue = prefixValue << 8 | Int(input[offset])
                    prefixCount += 1
                    offset += 1
                }
                guard prefixCount == 2 else { return false }
                guard bounds.contains(prefixValue), prefixValue <= WireLimits.maximumFrameLength
                else {
                    let length = prefixValue
                    reset()
                    throw LengthError(length: length)
                }
                target = prefixValue
            }
        }
        guard let target else { return false }
        let take = min(target - filled, input.count - offset)
        if take > 0 {
            // Within the reserved capacity: appending never reallocates. Typed as bytes, so
            // Array copies the run in one piece.
            let bytes = UnsafeRawBufferPointer(rebasing: input[offset..<offset + take])
            buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
            offset += take
        }
        complete = filled == target
        return complete
    }

    /// The completed item (a copy-on-write view of the buffer; do not hold it across `read`).
    public var item: ArraySlice<UInt8> { complete ? buffer[...] : [] }

    /// The 2 length bytes of the completed frame: the associated data of a transport frame.
    public var lengthPrefix: [UInt8] { ByteCoding.lengthPrefix(complete ? filled : 0) }

    /// Calls `body` with the completed item without copying it.
    public func withItem<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        let count = complete ? filled : 0
        let result = buffer.withUnsafeBytes { raw -> Result<R, E> in
            do throws(E) {
                return .success(try body(UnsafeRawBufferPointer(rebasing: raw[0..<count])))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// True while part of an item (prefix or body) has been read but not all of it.
    public var hasPartialItem: Bool { !complete && (prefixCount > 0 || filled > 0) }

    /// Forgets any partial item.
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        prefixCount = 0
        prefixValue = 0
        target = nil
        complete = false
    }

    /// Test hook: body bytes taken into the buffer for the current item.
    package var bufferedBodyBytes: Int { filled }
    /// Test hook: the buffer's capacity (0 before the first read, then at least 65 535, as the
    /// allocator rounded it; it never grows).
    package var bufferCapacity: Int { buffer.capacity }
}
