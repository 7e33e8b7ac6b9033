import Foundation
import Testing

extension EndToEnd {
    /// Scenario 6: the control socket itself (lanchat-api(7), PRODUCT.md §2, §5): its file
    /// modes, and bad requests answered with JSON-RPC errors on a connection that stays
    /// usable.
    @Suite struct ControlSocket {
        @Test func socketIs0600InA0700DirectoryAndFilesArePrivate() async throws {
            try await inSandbox { sandbox in
                // The socket's directory does not exist yet: the daemon creates it.
                let socket = sandbox.file("run/lanchat/lanchatd.sock")
                let daemon = try await DaemonProcess.start("alice", in: sandbox, socket: socket)
                #expect(try Self.mode(socket) == 0o600)
                #expect(try Self.mode(sandbox.file("run/lanchat")) == 0o700)
                #expect(try Self.mode(daemon.dataDirectory) == 0o700)
                #expect(try Self.mode(daemon.dataDirectory + "/identity.key") == 0o600)
                #expect(try Self.mode(daemon.dataDirectory + "/lanchat.sqlite3") == 0o600)
            }
        }

        @Test func badRequestsGetErrorsAndTheConnectionStaysUsable() async throws {
            try await inSandbox { sandbox in
                let daemon = try await DaemonProcess.start("alice", in: sandbox)
                let client = try await ControlSocketClient.connect(to: daemon.socket)
                defer { client.close() }

                // A request line over 1 MiB (a valid request, padded): -32600, then discarded.
                let padding = String(repeating: "p", count: 1_048_576)
                try await client.sendLine(
                    #"{"jsonrpc":"2.0","id":1,"method":"status","params":{"pad":"\#(padding)"}}"#)
                try await Self.expectError(client, code: -32600, id: nil, "request over 1 MiB")
                try await Self.expectStatusAnswer(client, id: 2, after: "request over 1 MiB")

                try await client.sendLine("hello")
                try await Self.expectError(client, code: -32700, id: nil, "not JSON")
                try await Self.expectStatusAnswer(client, id: 3, after: "not JSON")

                try await client.sendLine(#"{"jsonrpc":"2.0","id":4,"method":"teleport"}"#)
                try await Self.expectError(client, code: -32601, id: 4, "unknown method")
                try await Self.expectStatusAnswer(client, id: 5, after: "unknown method")

                let wrongTypes = [
                    #"{"jsonrpc":"2.0","id":6,"method":"who","params":{"all":"yes"}}"#,
                    #"{"jsonrpc":"2.0","id":7,"method":"history","params":{"peer":42}}"#,
                    #"{"jsonrpc":"2.0","id":8,"method":"send","params":{"peer":"bob","text":7}}"#,
                    #"{"jsonrpc":"2.0","id":9,"method":"history","params":{"peer":"x","limit":"9"}}"#,
                ]
                for (offset, request) in wrongTypes.enumerated() {
                    try await client.sendLine(request)
                    try await Self.expectError(client, code: -32602, id: 6 + offset, request)
                }
                try await Self.expectStatusAnswer(client, id: 10, after: "wrong param types")

                // Not a JSON-RPC request, and bytes that are not UTF-8: still answered.
                try await client.sendLine(#"{"id":11,"method":"status"}"#)
                try await Self.expectError(client, code: -32600, id: 11, "no jsonrpc member")
                try await client.sendLine([0xFF, 0xFE, 0x00, 0x7B])
                let binary = try await client.receiveObject()
                #expect(binary["apiVersion"] as? Int == 1)
                #expect(binary["error"] != nil, "\(binary)")
                try await Self.expectStatusAnswer(client, id: 12, after: "binary garbage")

                // A text that is not UTF-8 is bad input (-32001); a lone surrogate escape, or a
                // number that is not whole where one must be, invalid params. Nothing stored.
                let head = Array(#"{"jsonrpc":"2.0","id":13,"method":"send","params":{"#.utf8)
                try await client.sendLine(
                    head + Array(#""peer":"nobody","text":"a"#.utf8) + [0xFF]
                        + Array(#""}}"#.utf8))
                try await Self.expectError(client, code: -32001, id: 13, "text not UTF-8")
                try await client.sendLine(
                    #"{"jsonrpc":"2.0","id":14,"method":"send","params":{"peer":"nobody","#
                        + #""text":"\ud800"}}"#)
                try await Self.expectError(client, code: -32602, id: 14, "a lone surrogate")
                try await client.sendLine(
                    #"{"jsonrpc":"2.0","id":16,"method":"search","params":{"text":"x","limit":5.5}}"#
                )
                try await Self.expectError(client, code: -32602, id: 16, "limit 5.5")
                try await Self.expectStatusAnswer(client, id: 15, after: "text not UTF-8")

                // Pipelined: three requests in one write, answered by id.
                try await client.sendLine(
                    #"{"jsonrpc":"2.0","id":"a","method":"status"}"# + "\n"
                        + #"{"jsonrpc":"2.0","id":"b","method":"nonsense"}"# + "\n"
                        + #"{"jsonrpc":"2.0","id":"c","method":"who","params":{"all":true}}"#)
                var answers: [String: [String: Any]] = [:]
                for _ in 0..<3 {
                    let response = try await client.receiveObject()
                    if let id = response["id"] as? String { answers[id] = response }
                }
                #expect(Set(answers.keys) == ["a", "b", "c"], "\(answers)")
                #expect(answers["a"]?["result"] != nil)
                #expect((answers["b"]?["error"] as? [String: Any])?["code"] as? Int == -32601)
                #expect((answers["c"]?["result"] as? [String: Any])?["peers"] is [Any])

                // The daemon is unharmed for other clients too.
                let status = try await daemon.lanchat(["status"])
                #expect(status.status == 0, "\(status)")
            }
        }

        /// The next response is an error with `code`, the request's `id` (nil: JSON null)
        /// and `apiVersion` 1.
        static func expectError(
            _ client: ControlSocketClient, code: Int, id: Int?, _ what: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let response = try await client.receiveObject()
            #expect(
                response["jsonrpc"] as? String == "2.0", "\(what)", sourceLocation: sourceLocation)
            #expect(
                response["apiVersion"] as? Int == 1, "\(what): \(response)",
                sourceLocation: sourceLocation)
            let error = response["error"] as? [String: Any]
            #expect(
                error?["code"] as? Int == code, "\(what): \(response)",
                sourceLocation: sourceLocation)
            #expect(
                (error?["message"] as? String)?.isEmpty == false, "\(what): \(response)",
                sourceLocation: sourceLocation)
            #expect(response["result"] == nil, "\(what)", sourceLocation: sourceLocation)
            if let id {
                #expect(
                    response["id"] as? Int == id, "\(what): \(response)",
                    sourceLocation: sourceLocation)
            } else {
                #expect(
                    response["id"] is NSNull, "\(what): id must be null: \(response)",
                    sourceLocation: sourceLocation)
            }
        }

        /// Sends a valid `status` request and expects its result on the same connection.
        static func expectStatusAnswer(
            _ client: ControlSocketClient, id: Int, after what: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            try await client.sendLine(#"{"jsonrpc":"2.0","id":\#(id),"method":"status"}"#)
            let response = try await client.receiveObject()
            #expect(
                response["id"] as? Int == id, "status after \(what): \(response)",
                sourceLocation: sourceLocation)
            #expect(response["apiVersion"] as? Int == 1, sourceLocation: sourceLocation)
            let result = response["result"] as? [String: Any]
            #expect(
                result?["name"] as? String == "alice", "status after \(what): \(response)",
                sourceLocation: sourceLocation)
        }

        static func mode(_ path: String) throws -> Int {
            var info = stat()
            guard lstat(path, &info) == 0 else { throw SocketError("stat \(path)") }
            return Int(info.st_mode & 0o777)
        }
    }
}
