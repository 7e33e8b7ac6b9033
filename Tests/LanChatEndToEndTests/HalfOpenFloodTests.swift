import Testing

extension EndToEnd {
    /// Scenario 3, half-open connections (PROTOCOL.md §4.6, §7.1 14 and 15): a hundred silent
    /// connections from one address. The daemon admits 4 handshakes per address, must close
    /// the rest at once rather than keep them, closes the admitted ones at the 5 s read
    /// deadline, lets a new legitimate peer in meanwhile, and ends up holding no more file
    /// descriptors than before.
    @Suite struct HalfOpenFlood {
        static let floodSource = "127.0.0.50"
        static let connections = 100
        static let admittedPerAddress = 4
        /// Descriptors the daemon may legitimately hold beyond its count before the flood:
        /// carol's session and a few transient ones (store files, a control connection).
        static let descriptorSlack = 5

        @Test func overTheLimitIsClosedAndNothingLeaks() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let bob = pair.bob
                let baseline = bob.openFileDescriptors

                var flood: [TCPClient] = []
                defer { for client in flood { client.close() } }
                for _ in 0..<Self.connections {
                    flood.append(
                        try await TCPClient.connect(to: try bob.port, from: Self.floodSource))
                }
                let clock = ContinuousClock()
                let opened = clock.now

                // Refused connections are closed at once, not left open.
                let closedEarly = await TCPClient.awaitClosed(flood, timeout: .seconds(2))
                #expect(
                    closedEarly.count == Self.connections - Self.admittedPerAddress,
                    """
                    bob should close the \(Self.connections - Self.admittedPerAddress) connections \
                    over the per-address limit at once; closed \(closedEarly.count) within 2 s. \
                    Refusals logged: \(bob.logLines(containing: "refusing connection").count)
                    """)

                // A new legitimate peer (another address) still gets in during the flood.
                let carol = try await DaemonProcess.start(
                    "carol", in: sandbox, peers: ["127.0.0.1:\(try bob.port)"])
                try #require(try await carol.awaitOnline(bob.id), "\(carol.log)\n\(bob.log)")
                try await carol.sendDelivered("through the flood", to: "bob")

                // The admitted silent ones end at the handshake read deadline (5 s).
                let closedLate = await TCPClient.awaitClosed(flood, timeout: .seconds(7))
                print(
                    "[e2e] half-open flood: \(closedEarly.count) closed within 2 s, "
                        + "\(closedLate.count) of \(Self.connections) after "
                        + milliseconds(clock.now - opened))
                #expect(closedLate.count == Self.connections, "some silent connections stay open")
                // The failures are logged, but one line per address per 10 s (issue 9 item 10):
                // the other admitted ones are held back and counted in the next line.
                let logged = await pollUntil(timeout: .seconds(2)) {
                    !bob.logLines(containing: "handshake failed", Self.floodSource).isEmpty
                }
                #expect(logged, "a failed handshake is logged\n\(bob.log)")
                #expect(
                    bob.logLines(containing: "handshake failed", Self.floodSource).count == 1,
                    "failed handshakes from one address are throttled\n\(bob.log)")

                // No descriptor is left behind (carol's session adds one).
                for client in flood { client.close() }
                flood = []
                let settled = await pollUntil(timeout: .seconds(3)) {
                    bob.openFileDescriptors <= baseline + Self.descriptorSlack
                }
                #expect(
                    settled,
                    "bob holds \(bob.openFileDescriptors) descriptors, \(baseline) before the flood"
                )
                try await HandshakeAttacks.expectStillServing(
                    bob, peer: pair.alice, otherPeers: [carol])
            }
        }
    }
}
