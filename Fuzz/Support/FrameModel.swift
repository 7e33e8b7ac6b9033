import LanChatCore

/// The frame rules of PROTOCOL.md §4.2 written out plainly, as the oracle for
/// `TransportFrame.decode` and the `Reassembler`.
package enum FrameModel {
    /// The tag each known type must travel with: DATA, PING, PONG with TAG_MESSAGE (0),
    /// REKEY with TAG_REKEY (2), CLOSE with TAG_FINAL (3).
    package static func requiredTag(type: UInt8) -> UInt8? {
        switch type {
        case 1, 2, 3: 0
        case 4: 2
        case 5: 3
        default: nil
        }
    }

    package static func decode(_ plaintext: [UInt8], tag: UInt8) -> Result<
        TransportFrame, ChannelError
    > {
        // TAG_PUSH (1) is never used; anything above TAG_FINAL is not a secretstream tag.
        guard tag == 0 || tag == 2 || tag == 3 else { return .failure(ChannelError(.pushTag)) }
        guard plaintext.count >= 2 else {
            return .failure(ChannelError(.malformedBody(type: plaintext.first ?? 0)))
        }
        let type = plaintext[0]
        let flags = plaintext[1]
        let body = plaintext[2...]
        guard let required = requiredTag(type: type) else {
            // A future type: ignored, but only with TAG_MESSAGE.
            return tag == 0
                ? .success(.ignored(type: type))
                : .failure(ChannelError(.tagMismatch(type: type, tag: tag)))
        }
        guard tag == required else {
            return .failure(ChannelError(.tagMismatch(type: type, tag: tag)))
        }
        guard flags & (type == 1 ? 0xFE : 0xFF) == 0 else {
            return .failure(ChannelError(.invalidFlags(type: type, flags: flags)))
        }
        switch type {
        case 1: return .success(.data(body, end: flags & 1 == 1))
        case 2:
            return body.count == 8
                ? .success(.ping(body)) : .failure(ChannelError(.malformedBody(type: type)))
        case 3: return .success(.pong(body))
        case 4:
            return body.isEmpty
                ? .success(.rekey) : .failure(ChannelError(.malformedBody(type: type)))
        default:
            guard body.count == 2 else { return .failure(ChannelError(.malformedBody(type: type))) }
            let reason = UInt16(body[body.startIndex]) << 8 | UInt16(body[body.startIndex + 1])
            return .success(.close(CloseReason(rawValue: reason)))
        }
    }
}

/// Reassembly as PROTOCOL.md §4.2 states it: fragments join until END; more than `limit`
/// bytes in one message is an overflow, after which the message in progress is dropped.
package struct ReassemblyModel {
    package let limit: Int
    package private(set) var pending: [UInt8] = []

    package init(limit: Int = WireLimits.maximumMessage) { self.limit = limit }

    package mutating func append(_ fragment: ArraySlice<UInt8>, end: Bool) -> Result<
        [UInt8]?, ChannelError
    > {
        guard pending.count + fragment.count <= limit else {
            pending = []
            return .failure(ChannelError(.reassemblyOverflow))
        }
        pending += fragment
        guard end else { return .success(nil) }
        defer { pending = [] }
        return .success(pending)
    }
}
