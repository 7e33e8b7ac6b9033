import Foundation
import Testing

extension EndToEnd {
    /// Scenario 2 (TESTING.md system scenario 11 on loopback): the message text never
    /// crosses the TCP connection in any readable form.
    @Suite struct NoPlaintextOnWire {
        @Test func relayedBytesNeverContainTheText() async throws {
            try await inSandbox { sandbox in
                try await withRelayedPair(in: sandbox) { alice, bob, relay in
                    let text = "e2e canary: the eagle lands at dawn \(UUID().uuidString)"
                    let message = try await alice.sendDelivered(text, to: "bob")
                    let received = try await bob.awaitReceived(message.id, from: "alice")
                    #expect(received?.text == text, "the relay must have carried the message")

                    let recordings = relay.recordings
                    try #require(recordings.count >= 1, "nothing went through the relay")
                    let sent = recordings.flatMap(\.clientToServer)
                    let answered = recordings.flatMap(\.serverToClient)
                    // A real session went through: the LCHT/1 preamble, a handshake, the message
                    // (at least as long as its text once encrypted) and its acknowledgement.
                    #expect(Array(sent.prefix(5)) == [0x4C, 0x43, 0x48, 0x54, 0x01])
                    #expect(
                        sent.count > 42 + 76 + text.utf8.count, "client→server: \(sent.count) B")
                    #expect(answered.count > 108, "server→client: \(answered.count) B")
                    print(
                        "[e2e] relay carried \(sent.count) B alice→bob, \(answered.count) B bob→alice "
                            + "over \(recordings.count) connection(s)")

                    for (form, needle) in Self.encodings(of: text) {
                        #expect(
                            !Self.contains(sent, needle) && !Self.contains(answered, needle),
                            "the text appears on the wire as \(form)")
                    }
                }
            }
        }

        /// The forms a careless implementation could leak the text in: UTF-8 (whole and a
        /// 16-byte middle slice), UTF-16 in both byte orders, and base64 at each of the
        /// three alignments (the part not touched by the neighbouring bytes).
        static func encodings(of text: String) -> [(String, [UInt8])] {
            let utf8 = Array(text.utf8)
            let middle = Array(utf8[utf8.count / 2 - 8..<utf8.count / 2 + 8])
            let utf16LE = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            let utf16BE = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            var forms: [(String, [UInt8])] = [
                ("UTF-8", utf8), ("a UTF-8 slice", middle), ("UTF-16LE", utf16LE),
                ("UTF-16BE", utf16BE),
            ]
            for shift in 0..<3 {
                let encoded = Array(
                    (Data(repeating: 0, count: shift) + Data(utf8)).base64EncodedString().utf8)
                let stable = encoded.dropFirst(shift == 0 ? 0 : 4).dropLast(4)
                forms.append(("base64 (alignment \(shift))", Array(stable)))
            }
            return forms
        }

        static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
            guard !needle.isEmpty, haystack.count >= needle.count else { return false }
            return (0...(haystack.count - needle.count)).contains { start in
                haystack[start..<start + needle.count].elementsEqual(needle)
            }
        }

        @Test func theCanaryCheckFindsTextThatIsThere() {
            // The search above must be able to fail: it finds each form when present.
            let text = "e2e canary: the eagle lands at dawn 0123456789"
            for (form, needle) in Self.encodings(of: text) {
                let carrier: [UInt8]
                switch form {
                case "UTF-16LE":
                    carrier = [9, 9] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
                case "UTF-16BE":
                    carrier = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + [7]
                case let base64 where base64.hasPrefix("base64"):
                    let shift = Int(String(base64.dropLast().last ?? "0")) ?? 0
                    carrier = Array(
                        (Data([1, 2, 3, 4, 5].prefix(shift + 3)) + Data(text.utf8) + Data([6]))
                            .base64EncodedString().utf8)
                default:
                    carrier = [0, 1] + Array(text.utf8) + [2]
                }
                #expect(Self.contains(carrier, needle), "\(form) not found where present")
            }
        }
    }
}
