#if canImport(Glibc)
    import Glibc
#endif

/// How a harness reports a broken property: one line on stderr naming the target and what
/// was expected, then `abort()`. libFuzzer treats the SIGABRT as a crash, writes the input as
/// an artifact and stops; the replay runner stops the same way. This is the harness's only
/// purpose, so unlike product code it traps on purpose.
package enum FuzzFailure {
    package static func report(
        _ message: String, file: StaticString = #fileID, line: UInt = #line
    ) -> Never {
        let text = "FUZZ PROPERTY VIOLATED (\(file):\(line)): \(message)\n"
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
        abort()
    }
}

/// Checks one property of the code under test; see `FuzzFailure.report`.
package func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { FuzzFailure.report(message(), file: file, line: line) }
}

/// Lower-case hex, for failure messages and seed names.
package func fuzzHex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// Parses hex text (spaces and newlines ignored); nil for anything else. For embedded vectors.
package func fuzzUnhex(_ text: String) -> [UInt8]? {
    let clean = text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }
    guard clean.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var high: UInt8?
    for character in clean {
        let value: UInt8
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = character - UInt8(ascii: "A") + 10
        default: return nil
        }
        if let pending = high {
            out.append(pending << 4 | value)
            high = nil
        } else {
            high = value
        }
    }
    return out
}

/// True when `LANCHAT_FUZZ_TRACE` is set: harnesses then say on stderr what each input did
/// (meant for replaying a few inputs, not for fuzzing).
package let fuzzTracing = getenv("LANCHAT_FUZZ_TRACE") != nil

/// One line on stderr when tracing; the message is not even built otherwise.
package func fuzzTrace(_ message: @autoclosure () -> String) {
    guard fuzzTracing else { return }
    var bytes = Array((message() + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
