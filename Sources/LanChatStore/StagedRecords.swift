import LanChatCore

/// A received batch's messages as one blob (`incoming_staged.records`): what the ACK's
/// commit writes instead of a row, four index entries and an event per message.
///
/// Layout, little-endian: a version byte (1), the message count (u32), then per message its
/// id (16 bytes), stream (u64), seq (u64), `sent_at` (i64), a flags byte (bit 0: a group id
/// of 16 bytes follows) and its text (u32 length, UTF-8). Only valid texts are staged (a
/// REJECTed message is never stored), so a decoded record's text is the message's.
enum StagedRecords {
    static let version: UInt8 = 1

    static func encode(_ records: [IncomingRecord]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(5 + records.reduce(0) { $0 + 62 + $1.text.utf8.count })
        bytes.append(version)
        append(UInt32(records.count), to: &bytes)
        for record in records {
            let message = record.message
            bytes.append(contentsOf: message.id.bytes)
            append(message.stream, to: &bytes)
            append(message.seq, to: &bytes)
            append(UInt64(bitPattern: message.sentAt), to: &bytes)
            if let group = message.group {
                bytes.append(1)
                bytes.append(contentsOf: group)
            } else {
                bytes.append(0)
            }
            append(UInt32(record.text.utf8.count), to: &bytes)
            bytes.append(contentsOf: record.text.utf8)
        }
        return bytes
    }

    /// The records of `bytes`, or `corrupt` for anything `encode` cannot have written.
    static func decode(_ bytes: [UInt8]) throws(StoreError) -> [IncomingRecord] {
        var reader = Reader(bytes: bytes)
        guard try reader.byte() == version else {
            throw StoreError(.corrupt, "a staged batch has an unknown layout")
        }
        let count = Int(try reader.uint32())
        // Each message takes at least 46 bytes: a count beyond that is damage, not a batch.
        guard count <= bytes.count / 46 else { throw Reader.damaged }
        var records: [IncomingRecord] = []
        records.reserveCapacity(count)
        for _ in 0..<count {
            guard let id = MessageID(bytes: try reader.bytes(MessageID.byteCount)) else {
                throw Reader.damaged
            }
            let stream = try reader.uint64()
            let seq = try reader.uint64()
            let sentAt = Int64(bitPattern: try reader.uint64())
            var group: [UInt8]?
            switch try reader.byte() {
            case 0: break
            case 1: group = Array(try reader.bytes(16))
            default: throw Reader.damaged
            }
            let length = Int(try reader.uint32())
            let text = String(validating: try reader.bytes(length), as: UTF8.self)
            guard let text else { throw Reader.damaged }
            records.append(
                IncomingRecord(
                    message: WireMessage(
                        stream: stream, seq: seq, id: id, sentAt: sentAt, group: group, text: text),
                    text: text))
        }
        guard reader.isAtEnd else { throw Reader.damaged }
        return records
    }

    private static func append(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private struct Reader {
        static let damaged = StoreError(.corrupt, "a staged batch is damaged")
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func bytes(_ count: Int) throws(StoreError) -> ArraySlice<UInt8> {
            guard count >= 0, count <= bytes.count - offset else { throw Self.damaged }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func byte() throws(StoreError) -> UInt8 {
            try bytes(1).first ?? 0
        }

        mutating func uint32() throws(StoreError) -> UInt32 {
            try bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func uint64() throws(StoreError) -> UInt64 {
            try bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}
