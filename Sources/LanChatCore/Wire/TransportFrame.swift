/// The secretstream tags LCHT/1 uses (PROTOCOL.md §4.2). TAG_PUSH exists in libsodium but is
/// never sent, and `PUSH | REKEY == FINAL`, so a received PUSH is an error.
public enum StreamTag: UInt8, Sendable {
    case message = 0
    case push = 1
    case rekey = 2
    case final = 3
}

/// A decrypted transport frame: `type u8 ‖ flags u8 ‖ body`, with the tag↔type rule applied.
/// Pure codec; the crypto layer encrypts and decrypts the plaintext.
public enum TransportFrame: Equatable, Sendable {
    case data(ArraySlice<UInt8>, end: Bool)
    case ping(ArraySlice<UInt8>)
    case pong(ArraySlice<UInt8>)
    case rekey
    case close(CloseReason)
    /// A type this version does not know, sent with TAG_MESSAGE: ignored after decryption.
    case ignored(type: UInt8)

    public enum FrameType: UInt8, Sendable {
        case data = 0x01
        case ping = 0x02
        case pong = 0x03
        case rekey = 0x04
        case close = 0x05

        /// The only tag each type may travel with.
        public var tag: StreamTag {
            switch self {
            case .data, .ping, .pong: .message
            case .rekey: .rekey
            case .close: .final
            }
        }
    }

    /// DATA flag bit 0: this fragment ends the application message.
    public static let endFlag: UInt8 = 0x01

    /// The plaintext `type ‖ flags ‖ body` to push, and the tag to push it with.
    public static func plaintext(_ type: FrameType, flags: UInt8 = 0, body: ArraySlice<UInt8>)
        -> [UInt8]
    {
        var out: [UInt8] = [type.rawValue, flags]
        out.reserveCapacity(2 + body.count)
        out += body
        return out
    }

    public static func closePlaintext(_ reason: CloseReason) -> [UInt8] {
        var body: [UInt8] = []
        ByteCoding.appendUInt16(reason.rawValue, to: &body)
        return plaintext(.close, body: body[...])
    }

    /// Decodes a decrypted plaintext received with `tag`. Fails on TAG_PUSH, a tag that does
    /// not match the type, reserved flags, or a body of the wrong size for REKEY/CLOSE.
    public static func decode(_ plaintext: ArraySlice<UInt8>, tag rawTag: UInt8)
        -> Result<TransportFrame, ChannelError>
    {
        guard let tag = StreamTag(rawValue: rawTag), tag != .push else {
            return .failure(ChannelError(.pushTag))
        }
        guard plaintext.count >= 2 else {
            return .failure(ChannelError(.malformedBody(type: plaintext.first ?? 0)))
        }
        let rawType = plaintext[plaintext.startIndex]
        let flags = plaintext[plaintext.startIndex + 1]
        let body = plaintext.dropFirst(2)
        guard let type = FrameType(rawValue: rawType) else {
            guard tag == .message else {
                return .failure(ChannelError(.tagMismatch(type: rawType, tag: rawTag)))
            }
            return .success(.ignored(type: rawType))
        }
        guard type.tag == tag else {
            return .failure(ChannelError(.tagMismatch(type: rawType, tag: rawTag)))
        }
        let allowedFlags: UInt8 = type == .data ? endFlag : 0
        guard flags & ~allowedFlags == 0 else {
            return .failure(ChannelError(.invalidFlags(type: rawType, flags: flags)))
        }
        switch type {
        case .data: return .success(.data(body, end: flags & endFlag != 0))
        case .ping:
            // §4.2: 8 random bytes. A longer one would be echoed back whole (found by QA: a
            // 1 000-byte PING came back as a 1 000-byte PONG).
            guard body.count == 8 else {
                return .failure(ChannelError(.malformedBody(type: rawType)))
            }
            return .success(.ping(body))
        case .pong: return .success(.pong(body))
        case .rekey:
            guard body.isEmpty else { return .failure(ChannelError(.malformedBody(type: rawType))) }
            return .success(.rekey)
        case .close:
            guard body.count == 2, let reason = ByteCoding.readUInt16(body, at: 0) else {
                return .failure(ChannelError(.malformedBody(type: rawType)))
            }
            return .success(.close(CloseReason(rawValue: reason)))
        }
    }
}
