import Foundation
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
}
