import Testing

extension EndToEnd {
    /// Scenario 3: malformed handshakes against a running daemon's TCP port (PROTOCOL.md
    /// §7.1 8, 13 and §4.5). Each attack must end with the daemon closing that connection,
    /// one "handshake failed" log line naming it, and the daemon still serving its client
    /// and its legitimate peer.
    @Suite struct HandshakeAttacks {
        enum Attack: String, CaseIterable, Sendable, CustomTestStringConvertible {
            /// The preamble, then text where msg1's length should be (0x0D0A = 3338).
            case garbageAfterPreamble
            /// One bit of the magic flipped ("MCHT"), then an honest-looking msg1.
            case flippedMagicBit
            /// An honest preamble and msg1, then 76 random bytes as msg3: the AEAD fails.
            case forgedMessage3
            /// The preamble, then msg1 length 0xFFFF: refused before any body is read.
            case oversizedLength

            var testDescription: String { rawValue }

            /// A distinct loopback source per attack, so the daemon's per-address
            /// handshake limit never charges an attack to the legitimate peers (127.0.0.1).
            var source: String { "127.0.0.\(11 + (Self.allCases.firstIndex(of: self) ?? 0))" }

            /// What the daemon's log line says about the failure.
            var logFragment: String {
                switch self {
                case .garbageAfterPreamble: "out of bounds"
                case .flippedMagicBit: "bad magic"
                case .forgedMessage3: "authentication failed"
                case .oversizedLength: "out of bounds"
                }
            }
        }

        @Test(arguments: Attack.allCases)
        func daemonClosesLogsAndKeepsServing(_ attack: Attack) async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)

                let client = try await TCPClient.connect(to: try bob.port, from: attack.source)
                defer { client.close() }
                switch attack {
                case .garbageAfterPreamble:
                    try await client.send(
                        WireBytes.preamble + Array("\r\nGET / HTTP/1.1\r\nHost: bob\r\n\r\n".utf8))
                case .flippedMagicBit:
                    var preamble = WireBytes.preamble
                    preamble[0] ^= 0x01
                    try await client.send(
                        preamble + WireBytes.length(32) + WireBytes.randomPublicKey())
                case .forgedMessage3:
                    try await client.send(
                        WireBytes.preamble + WireBytes.length(32) + WireBytes.randomPublicKey())
                    let msg2 = await client.receive(
                        exactly: WireBytes.msg2FrameLength, timeout: .seconds(3))
                    #expect(msg2.count == WireBytes.msg2FrameLength, "msg2: \(msg2.count) B")
                    #expect(Array(msg2.prefix(2)) == WireBytes.length(108))
                    try await client.send(WireBytes.length(76) + WireBytes.random(76))
                case .oversizedLength:
                    try await client.send(WireBytes.preamble + WireBytes.length(0xFFFF))
                }

                // The daemon closes the connection at once and sends nothing (more).
                let (closed, extra) = await client.awaitClose(timeout: .seconds(3))
                #expect(closed, "\(attack): bob kept the connection open\n\(bob.log)")
                #expect(extra.isEmpty, "\(attack): bob answered \(extra.count) B before closing")
                let line = await bob.awaitLogLine(
                    "handshake failed", attack.logFragment, attack.source, ":\(client.localPort)")
                #expect(
                    line != nil, "\(attack): no log line for \(client.localAddress)\n\(bob.log)")

                try await Self.expectStillServing(bob, peer: alice)
            }
        }

        /// `target` (the daemon under attack) still answers its client, keeps its session
        /// with `peer`, exchanges messages with it both ways, and knows no peer but `peer`
        /// and `otherPeers` (an attack must not add one).
        static func expectStillServing(
            _ target: DaemonProcess, peer: DaemonProcess, otherPeers: [DaemonProcess] = [],
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let status = try await target.lanchat(["status"])
            #expect(status.status == 0, "\(status)", sourceLocation: sourceLocation)
            #expect(target.child.termination == nil, sourceLocation: sourceLocation)
            let toTarget = try await peer.sendDelivered(
                "still there?", to: target.id, sourceLocation: sourceLocation)
            let toPeer = try await target.sendDelivered(
                "yes", to: peer.id, sourceLocation: sourceLocation)
            let history = try await target.json(HistoryResult.self, ["history", peer.id])
            #expect(
                history.messages.suffix(2).map(\.id) == [toTarget.id, toPeer.id],
                sourceLocation: sourceLocation)
            let peers = try await target.json(WhoResult.self, ["who", "--all"]).peers
            #expect(
                Set(peers.map(\.id)) == Set(([peer] + otherPeers).map(\.id)),
                "no other peer may have been added",
                sourceLocation: sourceLocation)
        }
    }
}
