import NIOCore

/// One request line of the control socket, or the news that a line was too long.
enum ControlLine: Sendable {
    case line(ByteBuffer)
    /// A line over the limit was discarded up to its newline; answer with an error and keep
    /// the connection (PRODUCT.md §5).
    case tooLong
}

/// Splits the control socket's byte stream at newlines without ever buffering more than
/// `maxLength` bytes of one line.
struct ControlLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ControlLine

    let maxLength: Int
    private var discarding = false

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws
        -> DecodingState
    {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maxLength {
                if !discarding {
                    discarding = true
                    context.fireChannelRead(wrapInboundOut(.tooLong))
                }
                buffer.moveReaderIndex(to: buffer.writerIndex)
            }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        if discarding || length > maxLength {
            if !discarding { context.fireChannelRead(wrapInboundOut(.tooLong)) }
            discarding = false
            buffer.moveReaderIndex(forwardBy: length + 1)
            return .continue
        }
        if let line = buffer.readSlice(length: length) {
            buffer.moveReaderIndex(forwardBy: 1)
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A last request without its newline is still a request.
        if !discarding, buffer.readableBytes > 0,
            let line = buffer.readSlice(length: buffer.readableBytes)
        {
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .needMoreData
    }
}
