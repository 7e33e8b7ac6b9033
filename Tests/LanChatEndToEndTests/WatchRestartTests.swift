import Foundation
import LanChatTestSupport
import Testing

extension EndToEnd {
    /// `lanchat watch --json` rides out a restart of its daemon (PRODUCT.md §4): it
    /// reconnects and resumes from its last cursor, so across the restart every message
    /// arrives once, in order, and cursors keep increasing.
    @Suite struct WatchRestart {
        struct Line: Decodable {
            struct Message: Decodable { var text: String }
            var cursor: String
            var type: String
            var message: Message?
        }

        @Test func aDaemonRestartDuringWatchLosesAndRepeatsNothing() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let bob = pair.bob
                // --since 0: the whole log, so what reaches bob before the watch has connected
                // is replayed rather than missed (without it, this test raced its own sends).
                let watcher = try #require(
                    RunningChild(
                        arguments: [
                            try Binaries.lanchat(), "--socket", bob.socket, "watch", "--json",
                            "--since", "0",
                        ]))
                // A line that never comes ends the test (the watcher is killed, so the
                // blocked read returns) instead of hanging the suite.
                let deadline = Task {
                    try await Task.sleep(for: .seconds(60))
                    kill(watcher.pid, SIGKILL)
                }
                defer { deadline.cancel() }
                var lines: [Line] = []
                func readUntil(received count: Int) async throws {
                    while lines.filter({ $0.type == "message.received" }).count < count {
                        let line = try #require(await watcher.readLine(), "watch ended early")
                        lines.append(try JSONDecoder().decode(Line.self, from: Data(line.utf8)))
                    }
                }
                for index in 1...3 { _ = try await pair.alice.send("before \(index)", to: "bob") }
                try await readUntil(received: 3)

                let bobPort = try bob.port
                #expect(await bob.stop() == .exited(0), "\(bob.log)")
                for index in 1...3 {
                    _ = try await pair.alice.send("while away \(index)", to: "bob")
                }
                let back = try await DaemonProcess.start(
                    "bob", in: sandbox, port: bobPort, peers: ["127.0.0.1:\(try pair.alice.port)"],
                    dataDirectory: bob.dataDirectory, socket: bob.socket)
                try #require(try await back.awaitOnline(pair.alice.id), "\(back.log)")
                for index in 1...3 { _ = try await pair.alice.send("after \(index)", to: "bob") }
                try await readUntil(received: 9)

                let texts = lines.filter { $0.type == "message.received" }.compactMap(
                    \.message?.text)
                #expect(
                    texts
                        == (1...3).map { "before \($0)" } + (1...3).map { "while away \($0)" }
                        + (1...3).map { "after \($0)" })
                let cursors = lines.compactMap { Int64($0.cursor) }
                #expect(cursors == cursors.sorted() && Set(cursors).count == cursors.count)
                kill(watcher.pid, SIGTERM)
                #expect(await watcher.exitStatus() == 0)
            }
        }
    }
}
