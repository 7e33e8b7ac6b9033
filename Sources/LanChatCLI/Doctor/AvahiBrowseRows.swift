/// The resolved rows of `avahi-browse -p -r` (`=;eth0;IPv4;NAME;_lanchat._tcp;local;HOST;
/// ADDRESS;PORT;"txt" "txt"`), as far as the doctor needs them.
struct AvahiBrowseRow: Sendable, Hashable {
    var interface: String
    var family: String
    /// The instance name, unescaped (`alice (3EBM-VERF)`).
    var instance: String
    var address: String
    var port: String
    /// The TXT strings without their quotes (`id=…`, `v=1`).
    var txt: [String]

    /// The `=` rows of `output`; other rows (`+`, `-`) and broken ones are ignored.
    static func parse(_ output: String) -> [AvahiBrowseRow] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ";", maxSplits: 9, omittingEmptySubsequences: false)
            guard fields.count == 10, fields[0] == "=" else { return nil }
            return AvahiBrowseRow(
                interface: String(fields[1]), family: String(fields[2]),
                instance: unescape(fields[3]), address: String(fields[7]),
                port: String(fields[8]), txt: quotedStrings(fields[9]))
        }
    }

    /// avahi's escaping back to text: `\DDD` is a decimal byte, `\X` is X.
    static func unescape<Text: StringProtocol>(_ text: Text) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = input.first else {
                bytes.append(byte)
                continue
            }
            let digits = input.prefix(3)
            if digits.count == 3, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = UInt8(String(decoding: digits, as: UTF8.self))
            {
                bytes.append(value)
                input = input.dropFirst(3)
            } else {
                bytes.append(next)
                input = input.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `"a=1" "b=x y"` → `["a=1", "b=x y"]`. avahi-browse does not escape quotes inside TXT
    /// strings, so a string ends at a quote followed by ` "` or the end of the line.
    static func quotedStrings<Text: StringProtocol>(_ text: Text) -> [String] {
        var strings: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "\"") {
            rest = rest[rest.index(after: open)...]
            var close = rest.endIndex
            var index = rest.startIndex
            while index < rest.endIndex {
                let after = rest.index(after: index)
                if rest[index] == "\""
                    && (after == rest.endIndex || rest[after...].hasPrefix(" \""))
                {
                    close = index
                    break
                }
                index = after
            }
            strings.append(String(rest[..<close]))
            rest = close == rest.endIndex ? rest[close...] : rest[rest.index(after: close)...]
        }
        return strings
    }
}
