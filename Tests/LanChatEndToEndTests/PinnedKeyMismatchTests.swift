import Testing

extension EndToEnd {
    /// Scenario 3, wrong pinned key (PROTOCOL.md §3.8 row 4, §7.1 1): alice pins bob's key
    /// with `--peer ID@HOST:PORT`; another daemon now answers on bob's port. alice must
    /// refuse it, say so in its log, keep the message queued, and deliver it to the real
    /// bob once he is back.
    @Suite struct PinnedKeyMismatch {
        @Test func impostorOnThePinnedAddressIsRefused() async throws {
            try await inSandbox { sandbox in
                // bob runs once, so that we know his id and port, then stops.
                let bob = try await DaemonProcess.start("bob", in: sandbox)
                let bobPort = try bob.port
                #expect(await bob.stop() == .exited(0), "\(bob.log)")

                // A different node (new data dir, so a new key) takes bob's port and name.
                let impostor = try await DaemonProcess.start(
                    "bob", in: sandbox, port: bobPort,
                    dataDirectory: sandbox.file("impostor-data"), socket: sandbox.file("imp.sock"))
                try #require(impostor.id != bob.id)
                let alice = try await DaemonProcess.start(
                    "alice", in: sandbox, peers: ["\(bob.id)@127.0.0.1:\(bobPort)"])
                let sent = try await alice.send("for bob's eyes only", to: bob.id)

                let warning = await alice.awaitLogLine(
                    "Could not confirm", "identity", "127.0.0.1:\(bobPort)",
                    "key tag \(impostor.keyTag)")
                #expect(warning != nil, "alice did not report the key mismatch\n\(alice.log)")

                // The message waits; bob is not online; the impostor learnt nothing.
                let history = try await alice.json(HistoryResult.self, ["history", bob.id])
                #expect(history.messages.map(\.id) == [sent])
                #expect(history.messages.first?.status == "queued")
                #expect(history.peer.presence != "online")
                let aliceKnows = try await alice.json(WhoResult.self, ["who", "--all"]).peers
                #expect(aliceKnows.map(\.id) == [bob.id], "the impostor must not be pinned")
                let impostorKnows = try await impostor.json(WhoResult.self, ["who", "--all"]).peers
                #expect(
                    impostorKnows.isEmpty,
                    "alice must abort before msg3, so the impostor never sees her key")
                let aliceStatus = try await alice.lanchat(["status"])
                #expect(aliceStatus.status == 0, "\(aliceStatus)")
                #expect(await impostor.stop() == .exited(0))

                // The real bob comes back (he dials alice, whose redial of the bad address
                // is held off): the queued message is delivered to him.
                let alicePort = try alice.port
                let realBob = try await DaemonProcess.start(
                    "bob", in: sandbox, peers: ["127.0.0.1:\(alicePort)"],
                    dataDirectory: bob.dataDirectory)
                #expect(realBob.id == bob.id)
                let delivered = try await alice.awaitMessage(sent, to: bob.id, status: "delivered")
                #expect(
                    delivered != nil, "not delivered to the real bob\n\(alice.log)\n\(realBob.log)")
                let received = try await realBob.awaitReceived(sent, from: alice.id)
                #expect(received?.text == "for bob's eyes only")
                try await HandshakeAttacks.expectStillServing(alice, peer: realBob)
            }
        }
    }
}
