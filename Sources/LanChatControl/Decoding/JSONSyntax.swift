import FoundationEssentials

/// The daemon's strict check of a request line that the fast reader (`JSONReader`) did not
/// take, before `JSONDecoder` reads it: RFC 8259 to the letter, which `JSONDecoder` is not.
/// It took a trailing comma (`{"method":"status",}` ran), `010`, `1.` and a lone `-` (answered
/// as an id or a param out of range), the first of two keys of one name (a proxy that checks
/// requests reads the last: the two would see different requests), and it looks into a
/// string only when it decodes it, so a raw control character or an unknown escape in a
/// string it skipped went through (found by QA, each of them).
///
/// One pass, no recursion (a stack of open containers), so no input can exhaust the stack;
/// nesting deeper than `maximumDepth` is refused by name, as `JSONDecoder` refuses it with
/// "not valid JSON". Lone surrogate escapes and invalid UTF-8 are left to the decoding, whose
/// answers to them lanchat-api(7) documents (`invalidParams`, `badInput`).
package enum JSONSyntax {
    /// `JSONDecoder`'s own limit: deeper requests never decoded.
    package static let maximumDepth = 512

    package enum Fault: Error, Sendable, Equatable {
        /// Not JSON, and why (`parseError`).
        case malformed(String)
        /// JSON whose meaning would depend on which of two keys counts (`invalidRequest`).
        case duplicateKey(String)

        package var message: String {
            switch self {
            case .malformed(let why): "the request is not valid JSON: \(why)"
            case .duplicateKey(let key):
                "the request has the key \"\(key)\" twice in one object; lanchatd reads no "
                    + "request whose meaning depends on which one counts"
            }
        }
    }

    /// What the check found: the fault, if any, and where the top-level `"id"` member's value
    /// is, if it was read before the fault, so that the answer can carry it.
    package struct Outcome: Sendable {
        package var fault: Fault?
        package var idValue: Range<Int>?
    }

    package static func check(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var scanner = Scanner(bytes: bytes)
        do {
            try scanner.document()
            return Outcome(fault: nil, idValue: scanner.idValue)
        } catch {
            return Outcome(fault: error, idValue: scanner.idValue)
        }
    }

    package static func check(_ bytes: [UInt8]) -> Outcome {
        bytes.withUnsafeBytes { check($0) }
    }

    /// Whether `bytes` hold `literal` (`true`, `null` …) at `index`; shared with `JSONReader`.
    static func holds(_ literal: StaticString, _ bytes: UnsafeRawBufferPointer, at index: Int)
        -> Bool
    {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            return false
        }
        return true
    }
}

extension JSONSyntax {
    private enum Container {
        case object(keys: Set<String>)
        case array
    }

    private enum Expecting {
        case value, key, afterValue
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0
        var stack: [Container] = []
        var idStart: Int?
        var idValue: Range<Int>?

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        var next: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
            }
        }

        mutating func document() throws(Fault) {
            // A byte order mark is tolerated, as `JSONDecoder` tolerates it.
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                index = 3
            }
            var expecting = Expecting.value
            while true {
                // A value just ended: the id's, when it was the top-level "id" member's.
                if case .afterValue = expecting, stack.count == 1, let start = idStart {
                    idValue = start..<index
                    idStart = nil
                }
                skipWhitespace()
                switch expecting {
                case .value:
                    expecting = try value()
                case .key:
                    try key()
                    expecting = .value
                case .afterValue:
                    guard let top = stack.last else {
                        guard next == nil else {
                            throw .malformed("more follows the request's closing brace")
                        }
                        return
                    }
                    expecting = try afterMember(of: top)
                }
            }
        }

        /// A value starts here; what comes after it.
        mutating func value() throws(Fault) -> Expecting {
            guard let byte = next else { throw .malformed("it ends where a value should be") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                index += 1
                guard stack.count < JSONSyntax.maximumDepth else {
                    throw .malformed(
                        "arrays and objects nest deeper than \(JSONSyntax.maximumDepth) levels")
                }
                let isObject = byte == UInt8(ascii: "{")
                stack.append(isObject ? .object(keys: []) : .array)
                skipWhitespace()
                if consume(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    stack.removeLast()
                    return .afterValue
                }
                return isObject ? .key : .value
            case UInt8(ascii: "\""):
                _ = try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                guard consume("true") || consume("false") || consume("null") else {
                    throw .malformed("a word that is not true, false or null")
                }
            case UInt8(ascii: "]") where stack.last.map(Self.isArray) == true:
                throw .malformed("a comma before ]")
            default:
                throw .malformed("\(Self.shown(byte)) where a value should be")
            }
            return .afterValue
        }

        /// An object's key and its colon.
        mutating func key() throws(Fault) {
            guard next == UInt8(ascii: "\"") else {
                throw next == UInt8(ascii: "}")
                    ? .malformed("a comma before }") : .malformed("an object key is not a string")
            }
            let start = index
            let hasEscape = try string()
            let key = Self.keyText(
                UnsafeRawBufferPointer(rebasing: bytes[start..<index]), hasEscape)
            let top = stack.count - 1
            guard case .object(var keys) = stack[top] else { return }
            // Taken out while it grows, so the set is not copied at every key.
            stack[top] = .array
            guard keys.insert(key).inserted else { throw .duplicateKey(key) }
            stack[top] = .object(keys: keys)
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else {
                throw .malformed("no colon after the key \"\(key)\"")
            }
            skipWhitespace()
            if stack.count == 1, key == "id" { idStart = index }
        }

        /// After a member of `top`: a comma, or the end of `top`.
        mutating func afterMember(of top: Container) throws(Fault) -> Expecting {
            let isObject = !Self.isArray(top)
            if consume(UInt8(ascii: ",")) { return isObject ? .key : .value }
            if consume(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                stack.removeLast()
                return .afterValue
            }
            guard let byte = next else { throw .malformed("it ends inside an object or array") }
            throw .malformed(
                "\(Self.shown(byte)) where a comma or \(isObject ? "}" : "]") should be")
        }

        /// A string from its opening quote past its closing one; whether it has an escape.
        mutating func string() throws(Fault) -> Bool {
            index += 1
            var hasEscape = false
            while let byte = next {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return hasEscape
                case UInt8(ascii: "\\"):
                    hasEscape = true
                    try escape()
                case 0..<0x20:
                    throw .malformed(
                        "a string holds a raw control character (byte \(byte)); JSON needs it "
                            + "escaped, as \\n, \\t or \\u00XX")
                default:
                    break
                }
            }
            throw .malformed("a string is never closed")
        }

        mutating func escape() throws(Fault) {
            guard let escape = next else { throw .malformed("a string ends in a lone backslash") }
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return
            case UInt8(ascii: "u"):
                guard index + 4 <= bytes.count,
                    (index..<index + 4).allSatisfy({ Self.isHexDigit(bytes[$0]) })
                else { throw .malformed("a \\u escape in a string without four hex digits") }
                index += 4
            default:
                throw .malformed(
                    "a string has the escape \\\(Unicode.Scalar(escape)), which JSON does not")
            }
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, followed by no digit or point.
        mutating func number() throws(Fault) {
            let form = "a number not written as JSON writes numbers"
            _ = consume(UInt8(ascii: "-"))
            if consume(UInt8(ascii: "0")) {
                if let byte = next, Self.isDigit(byte) {
                    throw .malformed("\(form): a leading zero")
                }
            } else if !skipDigits() {
                throw .malformed("\(form): a minus sign without digits")
            }
            if consume(UInt8(ascii: ".")), !skipDigits() {
                throw .malformed("\(form): no digit after the decimal point")
            }
            if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
                if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
                guard skipDigits() else { throw .malformed("\(form): an exponent without digits") }
            }
        }

        mutating func skipDigits() -> Bool {
            let start = index
            while let byte = next, Self.isDigit(byte) { index += 1 }
            return index > start
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard next == byte else { return false }
            index += 1
            return true
        }

        mutating func consume(_ literal: StaticString) -> Bool {
            guard JSONSyntax.holds(literal, bytes, at: index) else { return false }
            index += literal.utf8CodeUnitCount
            return true
        }

        /// A key as its text: escapes resolved (`"\u0069d"` is `"id"`), else its bytes.
        static func keyText(_ quoted: UnsafeRawBufferPointer, _ hasEscape: Bool) -> String {
            let raw = String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self)
            guard hasEscape else { return raw }
            return (try? JSONDecoder().decode(String.self, from: Data(quoted))) ?? raw
        }

        static func isArray(_ container: Container) -> Bool {
            if case .array = container { true } else { false }
        }

        static func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                UInt8(ascii: "A")...UInt8(ascii: "F"):
                true
            default: false
            }
        }

        /// A byte as the user typed it, for a message: printable ASCII quoted, else its value.
        static func shown(_ byte: UInt8) -> String {
            (0x21..<0x7F).contains(byte) ? "'\(Unicode.Scalar(byte))'" : "byte \(byte)"
        }
    }
}
