/// Strings: the bulk of every message (ids, peer ids, texts, timestamps).
extension JSONReader {
    /// A scanned string: still in the input when it had no escape, else unescaped in `scratch`.
    enum StringToken {
        /// `ascii`: no byte above 0x7F, so the bytes are valid UTF-8 without checking.
        case raw(UnsafeBufferPointer<UInt8>, ascii: Bool)
        case escaped(ascii: Bool)
    }

    package mutating func readString() -> String? {
        skipWhitespace()
        switch scanString() {
        case .raw(let content, let ascii): return Self.string(content, ascii: ascii)
        case .escaped(let ascii):
            return scratch.withUnsafeBufferPointer { Self.string($0, ascii: ascii) }
        case nil: return nil
        }
    }

    /// The String of checked UTF-8. `String(validating:)` would do, but is generic and not
    /// specialized for us: its type-metadata look-ups cost more than the copy.
    static func string(_ content: UnsafeBufferPointer<UInt8>, ascii: Bool) -> String? {
        guard ascii || isValidUTF8(content) else { return nil }
        return String(decoding: content, as: UTF8.self)
    }

    /// Validates a string without building it.
    mutating func skipString() -> Bool {
        switch scanString() {
        case .raw(let content, let ascii): return ascii || Self.isValidUTF8(content)
        case .escaped(let ascii): return ascii || scratch.withUnsafeBufferPointer(Self.isValidUTF8)
        case nil: return false
        }
    }

    /// Reads a string at the current position (no whitespace skipped), from its opening quote
    /// past its closing one. Nil for a raw control character, a bad escape, a lone surrogate
    /// or a missing end; the UTF-8 of the content is left for the caller to check.
    mutating func scanString() -> StringToken? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var runStart = index
        var escaped = false
        var high: UInt8 = 0
        while true {
            high |= skipPlainBytes()
            guard index < bytes.count else { return nil }
            let run = bytes[runStart..<index]
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                if !escaped { return .raw(UnsafeBufferPointer(rebasing: run), ascii: high < 0x80) }
                scratch.append(contentsOf: run)
                return .escaped(ascii: high < 0x80)
            }
            guard bytes[index] == UInt8(ascii: "\\") else { return nil }  // a control character
            if !escaped {
                scratch.removeAll(keepingCapacity: true)
                escaped = true
            }
            scratch.append(contentsOf: run)
            index += 1
            guard let scalar = readEscape() else { return nil }
            appendUTF8(scalar)
            runStart = index
        }
    }

    /// Skips bytes that stand for themselves in a string: all but `"`, `\\` and control
    /// characters. Answers the OR of their high bits, 0x80 if any was not ASCII. The bulk of
    /// every answer passes here, so it looks at eight bytes at a time while it can.
    private mutating func skipPlainBytes() -> UInt8 {
        var high: UInt64 = 0
        if let base = bytes.baseAddress {
            while bytes.count - index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                guard !Self.hasSpecialByte(word) else { break }
                high |= word
                index += 8
            }
        }
        var nonASCII: UInt8 = high & Self.highBits != 0 ? 0x80 : 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 else {
                break
            }
            nonASCII |= byte & 0x80
            index += 1
        }
        return nonASCII
    }

    private mutating func appendUTF8(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        switch value {
        case ..<0x80:
            scratch.append(UInt8(value))
        case ..<0x800:
            scratch.append(0xC0 | UInt8(value >> 6))
            scratch.append(0x80 | UInt8(value & 0x3F))
        case ..<0x1_0000:
            scratch.append(0xE0 | UInt8(value >> 12))
            scratch.append(0x80 | UInt8(value >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(value & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(value >> 18))
            scratch.append(0x80 | UInt8(value >> 12 & 0x3F))
            scratch.append(0x80 | UInt8(value >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(value & 0x3F))
        }
    }

    /// The escape after a backslash. A `\u` high surrogate must be followed by a `\u` low
    /// surrogate; a lone one of either kind is refused (`JSONDecoder` refuses it too).
    private mutating func readEscape() -> Unicode.Scalar? {
        guard let byte = next else { return nil }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
            return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = readHex4() else { return nil }
            switch unit {
            case 0xD800..<0xDC00:
                guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")),
                    let low = readHex4(), (0xDC00..<0xE000).contains(low)
                else { return nil }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            case 0xDC00..<0xE000:
                return nil
            default:
                return Unicode.Scalar(unit)
            }
        default:
            return nil
        }
    }

    private static let lowBits: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is `"`, `\\` or below 0x20 (the classic "has zero byte" and
    /// "has byte less than" bit tricks; exact about whether, not about which).
    private static func hasSpecialByte(_ word: UInt64) -> Bool {
        let quote = word ^ (lowBits &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (lowBits &* UInt64(UInt8(ascii: "\\")))
        let isQuote = (quote &- lowBits) & ~quote
        let isBackslash = (backslash &- lowBits) & ~backslash
        let isControl = (word &- lowBits &* 0x20) & ~word
        return (isQuote | isBackslash | isControl) & highBits != 0
    }

    private mutating func readHex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Checks UTF-8 without building a String (the standard library's own decoder rules:
    /// no overlong forms, no surrogates, nothing past U+10FFFF).
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
