/// A value of a row read from a page by hand (`SQLiteRecord`), before it is bound to SQL.
enum SalvagedValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    /// The text's bytes in the file's encoding (lanchat's stores are UTF-8).
    case text([UInt8])
    case blob([UInt8])
}

/// A row's payload in SQLite's record format
/// (https://www.sqlite.org/fileformat2.html#record_format): a header (its own size as a
/// varint, then one serial type per column), then the values.
enum SQLiteRecord {
    /// The values of `payload`; nil unless the header and the values fill it exactly, which
    /// is what tells a row from a damaged page's noise.
    static func decode(_ payload: [UInt8]) -> [SalvagedValue]? {
        guard let headerSize = SQLiteBytes.varint(payload, at: 0),
            headerSize.value <= UInt64(payload.count)
        else { return nil }
        let headerEnd = Int(headerSize.value)
        var types: [UInt64] = []
        var offset = headerSize.length
        while offset < headerEnd {
            guard let type = SQLiteBytes.varint(payload, at: offset) else { return nil }
            types.append(type.value)
            offset += type.length
        }
        guard offset == headerEnd else { return nil }
        var values: [SalvagedValue] = []
        values.reserveCapacity(types.count)
        for type in types {
            guard let size = valueSize(of: type), size <= payload.count - offset,
                let value = value(of: type, in: payload, at: offset, size: size)
            else { return nil }
            values.append(value)
            offset += size
        }
        return offset == payload.count ? values : nil
    }

    /// The bytes a value of serial type `type` takes; nil for the reserved types 10 and 11.
    static func valueSize(of type: UInt64) -> Int? {
        switch type {
        case 0, 8, 9: 0
        case 1, 2, 3, 4: Int(type)
        case 5: 6
        case 6, 7: 8
        case 10, 11: nil
        case let long where long > UInt64(Int32.max): nil
        default: Int(type - 12) / 2
        }
    }

    private static func value(of type: UInt64, in payload: [UInt8], at offset: Int, size: Int)
        -> SalvagedValue?
    {
        switch type {
        case 0: return .null
        case 8: return .integer(0)
        case 9: return .integer(1)
        case 1...6: return SQLiteBytes.signed(payload, at: offset, width: size).map { .integer($0) }
        case 7:
            return SQLiteBytes.unsigned(payload, at: offset, width: 8).map {
                .real(Double(bitPattern: $0))
            }
        default:
            let bytes = Array(payload[offset..<offset + size])
            return type % 2 == 0 ? .blob(bytes) : .text(bytes)
        }
    }
}
