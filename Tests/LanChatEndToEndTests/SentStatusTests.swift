import Foundation
import LanChatTestSupport
import Testing

extension EndToEnd {
    /// Found by QA: `sent` was never logged, so `watch` (and `chat`, which follows it) went
    /// from queued to delivered, and a message the peer did not acknowledge looked queued.
    /// bob's daemon is stopped (SIGSTOP: the session stays, nothing is read): alice's message
    /// is written and not acknowledged, so it is logged `sent`; once bob runs again it is
    /// delivered.
    @Suite struct SentStatus {
        struct Line: Decodable {
            struct Message: Decodable {
                var id: String
                var status: String?
            }
            var type: String
            var message: Message?
        }

        @Test func aMessageThePeerDoesNotAcknowledgeIsLoggedSentThenDelivered() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)
                bob.child.send(SIGSTOP)
                var stopped = true
                defer { if stopped { bob.child.send(SIGCONT) } }
                let id = try await alice.send("are you there?", to: "bob")
                let watcher = try #require(try alice.replayingWatch())
                defer { kill(watcher.pid, SIGKILL) }
                // A bound, not a wait for the event: without the `sent` the stream ends here.
                let bound = Task {
                    try await Task.sleep(for: .seconds(20))
                    kill(watcher.pid, SIGKILL)
                }
                defer { bound.cancel() }
                var statuses: [String] = []
                while let text = await watcher.readLine() {
                    let line = try JSONDecoder().decode(Line.self, from: Data(text.utf8))
                    guard line.type == "message.status", line.message?.id == id,
                        let status = line.message?.status
                    else { continue }
                    statuses.append(status)
                    if status == "sent" {
                        bob.child.send(SIGCONT)
                        stopped = false
                    }
                    if status == "delivered" { break }
                }
                #expect(statuses == ["queued", "sent", "delivered"], "\(alice.log)")
            }
        }
    }
}
