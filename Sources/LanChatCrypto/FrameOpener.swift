import LanChatCore

/// The receiving side of an established channel (PROTOCOL.md §4): reads length-prefixed
/// frames (bounds checked before the body, one 65 535-byte buffer), decrypts them with the
/// length bytes as AD, applies the tag↔type rule and reassembles messages.
///
/// Move-only and `@unchecked Sendable` for the same reason as `FrameSealer`: it owns the
/// incoming secretstream state and can be moved to another task, never shared. The first
/// error makes it unusable; after CLOSE every further byte is ignored.
public struct FrameOpener: ~Copyable, @unchecked Sendable {
    enum State {
        case open
        case closed
        case failed
    }

    private let stream: IncomingStream
    private var reader: FrameReader
    private var reassembler = Reassembler()
    private var state = State.open
    /// Bytes that arrived with the handshake after the peer's header frame.
    private var held: [UInt8]

    init(stream: IncomingStream, reader: consuming FrameReader, held: [UInt8]) {
        self.stream = stream
        self.reader = reader
        self.held = held
    }

    /// Decrypts every complete frame in `bytes` (after any bytes held from the handshake) and
    /// appends what they carry to `events`; a partial frame stays buffered. Events appended
    /// before a throw came from authentic frames; nothing from the failing frame or after it
    /// is delivered. After CLOSE the call does nothing.
    public mutating func receive(
        _ bytes: UnsafeRawBufferPointer, into events: inout [ChannelEvent]
    ) throws(ChannelError) {
        if state == .failed { throw ChannelError(.unusable) }
        if !held.isEmpty {
            let earlier = held
            held = []
            let result = earlier.withUnsafeBytes { input in
                Result { () throws(ChannelError) in try process(input, into: &events) }
            }
            try result.get()
        }
        try process(bytes, into: &events)
    }

    /// The same, from an array.
    public mutating func receive(_ bytes: [UInt8], into events: inout [ChannelEvent])
        throws(ChannelError)
    {
        let result = bytes.withUnsafeBytes { input in
            Result { () throws(ChannelError) in try receive(input, into: &events) }
        }
        try result.get()
    }

    /// The peer closed the TCP stream. Fine after CLOSE; otherwise the tail may have been cut
    /// off (`.truncated`, "connection lost, possibly truncated") and the opener is unusable.
    public mutating func endOfInput() throws(ChannelError) {
        switch state {
        case .closed: return
        case .failed: throw ChannelError(.unusable)
        case .open:
            state = .failed
            throw ChannelError(.truncated)
        }
    }

    /// True once the peer's CLOSE was read.
    public var isClosed: Bool { state == .closed }
    /// True while bytes from the handshake wait for the next `receive`.
    public var hasHeldInput: Bool { !held.isEmpty }
    /// Test hook: bytes of the message being reassembled and the reassembly buffer capacity.
    package var reassemblyForTesting: (bytes: Int, capacity: Int) {
        (reassembler.bytesInProgress, reassembler.capacity)
    }

    private mutating func process(
        _ input: UnsafeRawBufferPointer, into events: inout [ChannelEvent]
    ) throws(ChannelError) {
        var offset = 0
        while state == .open, offset < input.count {
            let complete: Bool
            do {
                complete = try reader.read(
                    input, offset: &offset, expecting: .prefixed(WireLimits.transportFrameBounds))
            } catch {
                throw fail(.lengthOutOfBounds(error.length))
            }
            guard complete else { return }
            var plaintext: [UInt8] = []
            let ad = reader.lengthPrefix
            let opened = reader.withItem { ciphertext in
                Result { () throws(ChannelError) in
                    try stream.open(ciphertext, ad: ad, into: &plaintext)
                }
            }
            let tag: UInt8
            switch opened {
            case .success(let value): tag = value
            case .failure(let error): throw fail(error.code)
            }
            switch TransportFrame.decode(plaintext[...], tag: tag) {
            case .failure(let error): throw fail(error.code)
            case .success(let frame): try deliver(frame, into: &events)
            }
        }
    }

    private mutating func deliver(_ frame: TransportFrame, into events: inout [ChannelEvent])
        throws(ChannelError)
    {
        switch frame {
        case .data(let body, let end):
            do {
                if let message = try reassembler.append(body, end: end) {
                    events.append(.message(message))
                }
            } catch {
                throw fail(error.code)
            }
        case .ping(let body): events.append(.ping(Array(body)))
        case .pong(let body): events.append(.pong(Array(body)))
        case .rekey: break  // libsodium ratchets the pull state itself on TAG_REKEY.
        case .close(let reason):
            state = .closed
            events.append(.close(reason))
        case .ignored: break
        }
    }

    private mutating func fail(_ code: ChannelError.Code) -> ChannelError {
        state = .failed
        reader.reset()
        return ChannelError(code)
    }
}
