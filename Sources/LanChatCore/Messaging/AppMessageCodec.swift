extension AppMessage {
    /// Appends the encoded message to `out`.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .hello(let hello):
            out.append(Kind.hello.rawValue)
            out.appendString(hello.name)
            out.append(hello.presence.rawValue)
            out.appendString(hello.statusText)
            for value in [
                hello.outStream, hello.outNext, hello.inStream, hello.inDelivered, hello.inRead,
            ] {
                out.appendBigEndian(value)
            }
        case .message(let message):
            out.append(Kind.message.rawValue)
            out.appendBigEndian(message.stream)
            out.appendBigEndian(message.seq)
            out.append(contentsOf: message.id.bytes)
            out.appendBigEndian(message.sentAt)
            if let group = message.group {
                out.append(0x01)
                out.append(contentsOf: group)
            } else {
                out.append(0x00)
            }
            switch message.text {
            case .valid(let text): out.appendString(text)
            case .unacceptable: out.appendBigEndian(UInt32(0))
            }
        case .ack(let stream, let delivered):
            out.append(Kind.ack.rawValue)
            out.appendBigEndian(stream)
            out.appendBigEndian(delivered)
        case .read(let stream, let read):
            out.append(Kind.read.rawValue)
            out.appendBigEndian(stream)
            out.appendBigEndian(read)
        case .typing(let typing):
            out.append(Kind.typing.rawValue)
            out.append(typing ? 1 : 0)
        case .presence(let presence, let statusText):
            out.append(Kind.presence.rawValue)
            out.append(presence.rawValue)
            out.appendString(statusText)
        case .reject(let stream, let seq, let reason):
            out.append(Kind.reject.rawValue)
            out.appendBigEndian(stream)
            out.appendBigEndian(seq)
            out.appendBigEndian(reason.code)
        case .group(let group):
            out.append(Kind.group.rawValue)
            out.append(contentsOf: group.id.bytes)
            out.appendBigEndian(group.version)
            out.appendString(group.name)
            out.appendBigEndian(UInt16(truncatingIfNeeded: group.members.count))
            for member in group.members { out.append(contentsOf: member.bytes) }
        case .unknown(let kind):
            out.append(kind)
        }
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Decodes one application message. Throws for anything malformed; the session then
    /// closes with CLOSE(PROTOCOL_ERROR). A MSG with sound framing but unacceptable text
    /// decodes successfully with `.unacceptable(reason)`.
    public static func decode(_ bytes: [UInt8]) throws(AppCodecError) -> AppMessage {
        var reader = ByteReader(bytes)
        guard !reader.isAtEnd else { throw .empty }
        let rawKind = try reader.u8()
        guard let kind = Kind(rawValue: rawKind) else { return .unknown(kind: rawKind) }
        let message: AppMessage
        switch kind {
        case .hello:
            let name = try reader.string(limit: Limits.maxDisplayNameBytes)
            let presence = try decodePresence(&reader)
            let statusText = try reader.string(limit: Limits.maxStatusTextBytes)
            message = .hello(
                Hello(
                    name: name, presence: presence, statusText: statusText,
                    outStream: try reader.u64(), outNext: try reader.u64(),
                    inStream: try reader.u64(), inDelivered: try reader.u64(),
                    inRead: try reader.u64()))
        case .message:
            message = .message(try decodeWireMessage(&reader))
        case .ack:
            message = .ack(stream: try reader.u64(), delivered: try reader.u64())
        case .read:
            message = .read(stream: try reader.u64(), read: try reader.u64())
        case .typing:
            // §9.1 defines 1 and 0 only; another value is malformed, as an unknown presence.
            switch try reader.u8() {
            case 0: message = .typing(false)
            case 1: message = .typing(true)
            case let other: throw .invalidTyping(other)
            }
        case .presence:
            let presence = try decodePresence(&reader)
            message = .presence(
                presence, statusText: try reader.string(limit: Limits.maxStatusTextBytes))
        case .reject:
            message = .reject(
                stream: try reader.u64(), seq: try reader.u64(),
                reason: RejectReason(code: try reader.u16()))
        case .group:
            message = .group(try decodeGroup(&reader))
        }
        guard reader.isAtEnd else { throw .trailingBytes(reader.remaining) }
        return message
    }

    private static func decodePresence(_ reader: inout ByteReader) throws(AppCodecError)
        -> AnnouncedStatus
    {
        let value = try reader.u8()
        guard let presence = AnnouncedStatus(rawValue: value) else {
            throw .invalidPresence(value)
        }
        return presence
    }

    /// GROUP (§9.7): a name over 64 bytes or blank (no `group create` makes one, and no
    /// `#name` can reach it), more than 256 members, a key that is not a canonical X25519
    /// key, or a member listed twice is a protocol error like any other malformed field.
    private static func decodeGroup(_ reader: inout ByteReader) throws(AppCodecError)
        -> GroupUpdate
    {
        guard let id = GroupID(bytes: try reader.raw(GroupID.byteCount)) else { throw .truncated }
        let version = try reader.u64()
        let name = try reader.string(limit: Limits.maxGroupNameBytes)
        guard !name.allSatisfy(\.isWhitespace) else { throw .blankGroupName }
        let count = Int(try reader.u16())
        guard count <= Limits.maxGroupMembers else { throw .tooManyMembers(count) }
        var members: [PeerKey] = []
        members.reserveCapacity(count)
        var seen = Set<PeerKey>()
        for _ in 0..<count {
            guard let member = PeerKey(bytes: try reader.raw(PeerKey.byteCount)) else {
                throw .invalidMemberKey
            }
            guard seen.insert(member).inserted else { throw .duplicateMember }
            members.append(member)
        }
        return GroupUpdate(id: id, version: version, name: name, members: members)
    }

    private static func decodeWireMessage(_ reader: inout ByteReader) throws(AppCodecError)
        -> WireMessage
    {
        let stream = try reader.u64()
        let seq = try reader.u64()
        guard let id = MessageID(bytes: try reader.raw(MessageID.byteCount)) else {
            throw .truncated
        }
        let sentAt = try reader.i64()
        let flags = try reader.u8()
        guard flags & ~0x01 == 0 else { throw .invalidFlags(flags) }
        let group = flags & 0x01 != 0 ? Array(try reader.raw(16)) : nil
        // The length must lie inside the message (else: protocol error); past that, an
        // oversized, empty or non-UTF-8 text is the peer's content problem and is REJECTed,
        // and so is a text with U+0000: the store would keep only what precedes it, after
        // the ACK said all of it was stored.
        let length = Int(try reader.u32())
        let textBytes = try reader.raw(length)
        let text: WireMessage.Text
        if length > Limits.maxTextBytes {
            text = .unacceptable(.tooLarge)
        } else if length == 0 {
            text = .unacceptable(.invalidText)
        } else if textBytes.contains(0) {
            text = .unacceptable(.invalidText)
        } else if let valid = String(validating: textBytes, as: UTF8.self) {
            text = .valid(valid)
        } else {
            text = .unacceptable(.invalidText)
        }
        return WireMessage(
            stream: stream, seq: seq, id: id, sentAt: sentAt, group: group, text: text)
    }
}
