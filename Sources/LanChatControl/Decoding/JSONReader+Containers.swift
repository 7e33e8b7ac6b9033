/// Objects, arrays, and skipping whatever a type does not know.
extension JSONReader {
    /// Reads an object, calling `member` with each key; `member` must read or skip the value.
    /// False as soon as `member` or the syntax fails.
    package mutating func readObject(_ member: (inout JSONReader, JSONKey) -> Bool) -> Bool {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")), enter() else { return false }
        skipWhitespace()
        if !consume(UInt8(ascii: "}")) {
            repeat {
                skipWhitespace()
                guard let key = readKey() else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")), member(&self, key) else { return false }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { return false }
        }
        depth -= 1
        return true
    }

    /// Reads an array whose elements all read with `element`.
    package mutating func readArray<Element>(
        _ element: (inout JSONReader) -> Element?
    ) -> [Element]? {
        var elements: [Element] = []
        let complete = forEachElement { reader in
            guard let value = element(&reader) else { return false }
            elements.append(value)
            return true
        }
        return complete ? elements : nil
    }

    private mutating func forEachElement(_ element: (inout JSONReader) -> Bool) -> Bool {
        skipWhitespace()
        guard consume(UInt8(ascii: "[")), enter() else { return false }
        skipWhitespace()
        if !consume(UInt8(ascii: "]")) {
            repeat {
                guard element(&self) else { return false }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "]")) else { return false }
        }
        depth -= 1
        return true
    }

    private mutating func enter() -> Bool {
        depth += 1
        return depth <= Self.maximumDepth
    }

    /// Validates any value without keeping it (an unknown key's, the envelope's `id`).
    package mutating func skipValue() -> Bool {
        skipWhitespace()
        guard let byte = next else { return false }
        switch byte {
        case UInt8(ascii: "{"): return readObject { reader, _ in reader.skipValue() }
        case UInt8(ascii: "["): return forEachElement { reader in reader.skipValue() }
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return skipNumber()
        default: return skipLiteral()
        }
    }

    private mutating func readKey() -> JSONKey? {
        switch scanString() {
        case .raw(let content, ascii: true): return JSONKey(bytes: content)
        case .raw(let content, ascii: false):
            return Self.string(content, ascii: false).map(JSONKey.init(string:))
        case .escaped(let ascii):
            return scratch.withUnsafeBufferPointer { Self.string($0, ascii: ascii) }
                .map(JSONKey.init(string:))
        case nil: return nil
        }
    }

    // MARK: Fields

    /// Reads a required field's value into `slot`. False when the value is not a `Value`
    /// (`null` included) or the key came before: `JSONDecoder` keeps the first of duplicate
    /// keys, and leaving that rare case to it keeps this path simple.
    package mutating func field<Value>(
        _ slot: inout Value?, _ read: (inout JSONReader) -> Value?
    ) -> Bool {
        guard slot == nil, let value = read(&self) else { return false }
        slot = value
        return true
    }

    /// Reads an optional field into `slot`: `.some(nil)` for `null`, as `decodeIfPresent` does
    /// (the outer nil means the key has not come yet).
    package mutating func optionalField<Value>(
        _ slot: inout Value??, _ read: (inout JSONReader) -> Value?
    ) -> Bool {
        guard slot == nil else { return false }
        if readNull() {
            slot = .some(nil)
            return true
        }
        guard let value = read(&self) else { return false }
        slot = value
        return true
    }

    /// Reads an object of which one required member matters (a wrapper such as
    /// `{"messages": [...]}`; other keys are skipped): its value, or nil when the object is
    /// malformed, repeats the member or lacks it.
    package mutating func readSingleMember<Value>(
        _ name: StaticString, _ read: (inout JSONReader) -> Value?
    ) -> Value? {
        var value: Value?
        let complete = readObject { reader, key in
            switch key {
            case name: reader.field(&value, read)
            default: reader.skipValue()
            }
        }
        return complete ? value : nil
    }
}

/// An object's key as the reader met it, matched against the names a type knows with
/// `switch key { case "id": ... }`.
package struct JSONKey {
    /// The key's bytes in the input: plain ASCII, no escapes, the common case.
    private let bytes: UnsafeBufferPointer<UInt8>
    /// A key with escapes or non-ASCII characters, compared as Swift compares Strings (as
    /// `JSONDecoder` does: `"\u212Ax"`, with a Kelvin sign, matches the key `Kx`).
    private let string: String?

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.string = nil
    }

    init(string: String) {
        self.bytes = UnsafeBufferPointer(start: nil, count: 0)
        self.string = string
    }

    package static func ~= (name: StaticString, key: JSONKey) -> Bool {
        if let string = key.string { return string == name.description }
        let count = name.utf8CodeUnitCount
        guard key.bytes.count == count else { return false }
        for offset in 0..<count where key.bytes[offset] != name.utf8Start[offset] {
            return false
        }
        return true
    }
}
