import Foundation
import LanChatTestSupport
import Testing

extension EndToEnd {
    /// A live `peer.new` names the peer (found by QA: it came with an empty name, because the
    /// key was logged at its handshake and the name comes with the HELLO after it).
    @Suite struct WatchPeerNew {
        struct Line: Decodable {
            struct Peer: Decodable {
                var id: String
                var name: String
                var alias: String?
            }
            var type: String
            var peer: Peer?
        }

        @Test func aPeerMetLiveIsAnnouncedWithItsName() async throws {
            try await inSandbox { sandbox in
                let alicePort = try reserveFreePort()
                let alice = try await DaemonProcess.start("alice", in: sandbox, port: alicePort)
                let watcher = try #require(
                    RunningChild(
                        arguments: [
                            try Binaries.lanchat(), "--socket", alice.socket, "watch", "--json",
                            "--since", "0",
                        ]))
                let deadline = Task {
                    try await Task.sleep(for: .seconds(60))
                    kill(watcher.pid, SIGKILL)
                }
                defer { deadline.cancel() }
                func nextPeerNew() async throws -> Line.Peer? {
                    while let line = await watcher.readLine() {
                        let decoded = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
                        if decoded.type == "peer.new" { return decoded.peer }
                    }
                    return nil
                }
                // A peer added by hand is announced at once: once it is on the stream (replayed
                // from the log's start, so that the watch's own start cannot miss it), the
                // watch is live, and bob's first contact below is met while it listens.
                let added = try await alice.lanchat(["add", "carol", Contacts.unseenID])
                try #require(added.status == 0, "\(added)")
                let first = try await nextPeerNew()
                #expect(first?.alias == "carol", "\(String(describing: first))")

                let bob = try await DaemonProcess.start(
                    "bob", in: sandbox, peers: ["127.0.0.1:\(alicePort)"])
                let met = try #require(try await nextPeerNew(), "the watch ended\n\(alice.log)")
                #expect(met.id == bob.id)
                #expect(met.name == "bob")
                kill(watcher.pid, SIGTERM)
                #expect(await watcher.exitStatus() == 0)
            }
        }
    }
}
