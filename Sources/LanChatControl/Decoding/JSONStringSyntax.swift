/// What `JSONDecoder` lets through in a string it never decodes: it reads the structure of a
/// whole request line but a string's content only when the string is decoded, so a raw
/// control character or an unknown escape inside params it skips, or inside params decoded
/// later, reached the daemon as a wrong param, or not at all. RFC 8259 §7 makes both
/// malformed JSON, and the daemon answers them as such (`parseError`).
///
/// Only strings are looked into: the structure around them is `JSONDecoder`'s to check.
package enum JSONStringSyntax {
    /// Why the strings of `bytes` are not JSON, or nil when they are.
    package static func fault(in bytes: UnsafeRawBufferPointer) -> String? {
        var inString = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard inString else {
                inString = byte == UInt8(ascii: "\"")
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = false
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return "a string ends in a lone backslash" }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        (index..<index + 4).allSatisfy({ isHexDigit(bytes[$0]) })
                    else { return "a \\u escape in a string without four hex digits" }
                    index += 4
                default:
                    return
                        "a string has the escape \\\(Unicode.Scalar(escape)), which JSON does not"
                }
            case 0..<0x20:
                return "a string holds a raw control character (byte \(byte)); JSON needs it "
                    + "escaped, as \\n, \\t or \\u00XX"
            default:
                break
            }
        }
        return nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}
