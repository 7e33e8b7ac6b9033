import Foundation
import LanChatControl
import LanChatCore
import Testing

@testable import LanChatDaemon

/// A control connection stays usable whatever it is sent (PRODUCT.md §5): spoken as raw
/// lines to one daemon, the way a script or another client would.
@Suite("Control connections stay usable", .timeLimit(.minutes(2)))
struct ControlConnectionTests {
    /// Runs `body` with a lone daemon and one raw connection to its socket.
    static func withConnection(
        _ body: (TestNode, RawControlConnection) async throws -> Void
    ) async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let alice = try await TestNode.start("alice", in: root)
        do {
            let connection = try await RawControlConnection.connect(to: alice.socketPath)
            defer { connection.close() }
            try await body(alice, connection)
        } catch {
            await alice.stop()
            throw error
        }
        await alice.stop()
    }

    /// Sends `status` with `id` and expects its result on the same connection.
    static func expectStatus(
        _ connection: RawControlConnection, id: Int, after what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await connection.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"status"}"#)
        let response = RawResponse(try await connection.receive())
        #expect(response.id == AnyHashable(id), "after \(what)", sourceLocation: sourceLocation)
        #expect(
            response.result?["name"] as? String == "alice", "after \(what): \(response.object)",
            sourceLocation: sourceLocation)
    }

    /// A refused `watch` is answered like any refused request, by its id, and the connection
    /// takes the next request; it used to be closed after the error.
    @Test func aRefusedWatchLeavesTheConnectionUsable() async throws {
        try await Self.withConnection { _, connection in
            let refusals: [(String, Int)] = [
                (#"{"peer":42}"#, -32602),
                (#"{"peer":"nobody"}"#, -32002),
                (#"{"since":"yesterday"}"#, -32011),
                (#"{"since":"0000000000999999"}"#, -32011),
            ]
            for (offset, (params, code)) in refusals.enumerated() {
                let id = 10 * (offset + 1)
                try await connection.send(
                    #"{"jsonrpc":"2.0","id":\#(id),"method":"watch","params":\#(params)}"#)
                let response = RawResponse(try await connection.receive())
                #expect(response.id == AnyHashable(id), "\(params): \(response.object)")
                #expect(response.errorCode == code, "\(params): \(response.object)")
                try await Self.expectStatus(connection, id: id + 1, after: "watch \(params)")
            }

            // Pipelined behind a refused watch, a request is still read and answered.
            try await connection.send(
                #"{"jsonrpc":"2.0","id":"w","method":"watch","params":{"peer":"nobody"}}"#
                    + "\n" + #"{"jsonrpc":"2.0","id":"s","method":"status"}"#)
            let refused = RawResponse(try await connection.receive())
            #expect(refused.id == AnyHashable("w") && refused.errorCode == -32002)
            let status = RawResponse(try await connection.receive())
            #expect(status.id == AnyHashable("s") && status.result != nil, "\(status.object)")

            // And a good watch on the same connection opens.
            try await connection.send(#"{"jsonrpc":"2.0","id":99,"method":"watch"}"#)
            let opened = RawResponse(try await connection.receive())
            #expect(opened.id == AnyHashable(99))
            #expect(opened.result?["cursor"] is String, "\(opened.object)")
        }
    }

    /// A request sent on a connection that streams a watch is answered with an error, by its
    /// id, saying to use another connection; the watch goes on. It used to end the stream
    /// without a word.
    @Test func aRequestDuringAWatchIsRefusedAndTheWatchGoesOn() async throws {
        try await Self.withConnection { alice, connection in
            try await connection.send(#"{"jsonrpc":"2.0","id":"w","method":"watch"}"#)
            let opened = RawResponse(try await connection.receive())
            #expect(opened.id == AnyHashable("w") && opened.result != nil, "\(opened.object)")

            try await connection.send(#"{"jsonrpc":"2.0","id":5,"method":"status"}"#)
            let refused = RawResponse(try await connection.receive())
            #expect(refused.id == AnyHashable(5), "\(refused.object)")
            #expect(refused.errorCode == -32600, "\(refused.object)")
            #expect(refused.errorMessage.contains("another connection"), "\(refused.object)")
            try await connection.send("hello")
            let garbage = RawResponse(try await connection.receive())
            #expect(garbage.id == nil && garbage.errorCode == -32700, "\(garbage.object)")

            // The stream is still there: the next event arrives on it.
            let carol = try #require(PeerKey(bytes: [UInt8](repeating: 0x43, count: 32))).id
            _ = try await alice.client.add(AddParams(name: "carol", id: carol))
            let event = RawResponse(try await connection.receive())
            #expect(event.method == "event", "\(event.object)")
            let params = event.object["params"] as? [String: Any]
            #expect(params?["type"] as? String == "peer.new", "\(event.object)")
            #expect((params?["peer"] as? [String: Any])?["id"] as? String == carol)
        }
    }

    /// JSON-RPC 2.0 ids may be any number: one that is not a whole number in Int64 comes back
    /// as that number (it used to come back null, which a pipelining client cannot match);
    /// one lanchatd cannot give back exactly is an invalid request, said so.
    @Test func numberIDsComeBackAsTheyWereSent() async throws {
        try await Self.withConnection { _, connection in
            for id in ["1.5", "-0.25", "18446744073709551616", "1e-7"] {
                try await connection.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"status"}"#)
                let line = try await connection.receiveText()
                let echoed = id == "1e-7" ? "0.0000001" : id
                #expect(line.contains(#""id":\#(echoed),"#), "\(id): \(line)")
                #expect(line.contains(#""result":"#), "\(id): \(line)")
            }
            try await connection.send(#"{"jsonrpc":"2.0","id":2.25,"method":"teleport"}"#)
            let unknown = try await connection.receiveText()
            #expect(unknown.contains(#""id":2.25,"#) && unknown.contains("-32601"), "\(unknown)")

            try await connection.send(#"{"jsonrpc":"2.0","id":1e200,"method":"status"}"#)
            let refused = RawResponse(try await connection.receive())
            #expect(refused.id == nil && refused.errorCode == -32600, "\(refused.object)")
            #expect(refused.errorMessage.contains("\"id\""), "\(refused.object)")
            try await Self.expectStatus(connection, id: 7, after: "an id out of range")

            // Found by QA: a method of the wrong type lost the id, which could be read.
            for line in [
                #"{"jsonrpc":"2.0","id":11,"method":5}"#,
                #"{"jsonrpc":"2.0","id":"x","method":[]}"#,
            ] {
                try await connection.send(line)
                let wrongType = RawResponse(try await connection.receive())
                #expect(wrongType.errorCode == -32600, "\(wrongType.object)")
                #expect(wrongType.id != nil, "\(line): \(wrongType.object)")
            }
            try await Self.expectStatus(connection, id: 8, after: "a method of the wrong type")
        }
    }

    /// A raw control character, or an escape JSON does not have, inside a string is malformed
    /// JSON (RFC 8259 §7): a parse error, whatever the method, not invalid params (what a
    /// control character in params used to get). The id, readable all the same, is given
    /// back; the same characters escaped are fine.
    @Test func aRawControlCharacterInAStringIsAParseError() async throws {
        try await Self.withConnection { _, connection in
            let malformed = [
                (#"{"jsonrpc":"2.0","id":1,"method":"send","params":{"peer":"nobody","text":"a"#
                    + "\t" + #"b"}}"#),
                (#"{"jsonrpc":"2.0","id":2,"method":"who","params":{"query":""#
                    + "\u{1}" + #""}}"#),
                (#"{"jsonrpc":"2.0","id":3,"method":"teleport","params":{"x":""#
                    + "\u{1F}" + #""}}"#),
                #"{"jsonrpc":"2.0","id":4,"method":"send","params":{"peer":"nobody","text":"\q"}}"#,
            ]
            for (offset, line) in malformed.enumerated() {
                try await connection.send(line)
                let response = RawResponse(try await connection.receive())
                #expect(
                    response.errorCode == -32700, "\(line.debugDescription): \(response.object)")
                #expect(response.id == AnyHashable(offset + 1), "\(response.object)")
            }
            try await Self.expectStatus(connection, id: 5, after: "raw control characters")

            try await connection.send(
                #"{"jsonrpc":"2.0","id":6,"method":"send","params":{"peer":"nobody","text":"a\tb\u0001"}}"#
            )
            let escaped = RawResponse(try await connection.receive())
            #expect(
                escaped.id == AnyHashable(6) && escaped.errorCode == -32002, "\(escaped.object)")
        }
    }

    /// What `JSONDecoder` takes but RFC 8259 does not is refused, not run (found by QA: a
    /// trailing comma in `group.create` made the group; `010` was answered as an id out of
    /// range; of two keys of one name the first counted). The id is given back where it was
    /// read before the fault.
    @Test func jsonThatJSONDecoderWouldTakeIsRefused() async throws {
        try await Self.withConnection { alice, connection in
            let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
            let refused: [(line: String, code: Int, id: AnyHashable?, says: String)] = [
                (#"{"jsonrpc":"2.0","id":1,"method":"status",}"#, -32700, 1, "a comma before }"),
                (
                    #"{"jsonrpc":"2.0","id":2,"method":"group.create","params":{"name":"tc","peers":["x",]}}"#,
                    -32700, 2, "a comma before ]"
                ),
                (#"{"jsonrpc":"2.0","id":010,"method":"status"}"#, -32700, nil, "a leading zero"),
                (
                    #"{"jsonrpc":"2.0","id":4,"method":"history","params":{"peer":"x","limit":1.}}"#,
                    -32700, 4, "no digit after the decimal point"
                ),
                (#"{"jsonrpc":"2.0","id":5,"method":-}"#, -32700, 5, "a minus sign without digits"),
                (
                    #"{"jsonrpc":"2.0","id":6,"id":7,"method":"status"}"#, -32600, nil,
                    #""id" twice"#
                ),
                (
                    #"{"jsonrpc":"2.0","id":8,"method":"typing","params":{"peer":"x","peer":"y","typing":true}}"#,
                    -32600, 8, #""peer" twice"#
                ),
                (
                    #"{"jsonrpc":"2.0","id":9,"method":"status","params":{"x":\#(deep)}}"#, -32700,
                    9,
                    "deeper than 512 levels"
                ),
                // Well-formed, but a head string that is no Unicode: the id still comes back.
                (#"{"jsonrpc":"2.0","id":12,"method":"status\ud800"}"#, -32700, 12, "not Unicode"),
            ]
            for (line, code, id, says) in refused {
                try await connection.send(line)
                let response = RawResponse(try await connection.receive())
                #expect(response.errorCode == code, "\(line.prefix(90)): \(response.object)")
                #expect(response.id == id, "\(line.prefix(90)): \(response.object)")
                #expect(response.errorMessage.contains(says), "\(response.errorMessage)")
            }
            try await Self.expectStatus(connection, id: 10, after: "malformed JSON")
            try await connection.send(#"{"jsonrpc":"2.0","id":11,"method":"groups"}"#)
            let groups = RawResponse(try await connection.receive())
            #expect((groups.result?["groups"] as? [Any])?.isEmpty == true, "\(groups.object)")
            _ = alice
        }
    }
}
