import Testing

extension EndToEnd {
    /// Scenario 3, replay (PROTOCOL.md §7.1 4 and 5): bytes recorded from a real session
    /// between alice and bob, replayed to bob, never make a session.
    @Suite struct HandshakeReplay {
        @Test func replayedFirstFlightGetsAFreshAnswerAndGoesNowhere() async throws {
            try await inSandbox { sandbox in
                try await withRelayedPair(in: sandbox) { alice, bob, relay in
                    try await alice.sendDelivered("recorded on the way", to: "bob")

                    let recording = try #require(relay.recordings.first)
                    let flight = Array(recording.clientToServer.prefix(WireBytes.firstFlightLength))
                    let msg2 = Array(recording.serverToClient.prefix(WireBytes.msg2FrameLength))
                    let msg3 = Array(
                        recording.clientToServer.dropFirst(WireBytes.firstFlightLength)
                            .prefix(WireBytes.msg3FrameLength))
                    try #require(flight.count == WireBytes.firstFlightLength)
                    #expect(Array(flight.prefix(10)) == WireBytes.preamble + WireBytes.length(32))
                    #expect(Array(msg3.prefix(2)) == WireBytes.length(76))

                    // Replay the first flight and hang up after the answer: bob answers with a
                    // fresh ephemeral key (a different msg2), then logs the abandoned handshake.
                    let first = try await TCPClient.connect(to: try bob.port, from: "127.0.0.21")
                    try await first.send(flight)
                    let answer = await first.receive(
                        exactly: WireBytes.msg2FrameLength, timeout: .seconds(3))
                    #expect(answer.count == WireBytes.msg2FrameLength)
                    #expect(Array(answer.prefix(2)) == WireBytes.length(108))
                    #expect(answer != msg2, "bob must not reuse its ephemeral key")
                    first.close()
                    let hangUp = await bob.awaitLogLine(
                        "handshake failed", "127.0.0.21", ":\(first.localPort)")
                    #expect(hangUp != nil, "no log line for the abandoned handshake\n\(bob.log)")

                    // Replay the first flight and the recorded msg3: it cannot match the fresh msg2.
                    let second = try await TCPClient.connect(to: try bob.port, from: "127.0.0.22")
                    defer { second.close() }
                    try await second.send(flight)
                    _ = await second.receive(
                        exactly: WireBytes.msg2FrameLength, timeout: .seconds(3))
                    try await second.send(msg3)
                    let (closed, extra) = await second.awaitClose(timeout: .seconds(3))
                    #expect(closed, "bob kept a replayed handshake open\n\(bob.log)")
                    #expect(extra.isEmpty, "bob sent \(extra.count) B after a replayed msg3")
                    let refused = await bob.awaitLogLine(
                        "handshake failed", "127.0.0.22", ":\(second.localPort)")
                    #expect(refused != nil, "no log line for the replayed msg3\n\(bob.log)")
                    #expect(bob.logLines(containing: "session up").count == 1, "\(bob.log)")

                    try await HandshakeAttacks.expectStillServing(bob, peer: alice)
                }
            }
        }
    }
}
