import LanChatControl
import Synchronization
import Testing

@testable import LanChatCLI

/// `send --lines` when the connection is lost with a batch on it (the daemon killed
/// mid-call, found by QA: exit 69, the rest of the input lost, ids unprinted): once the daemon
/// answers again, the batch is looked for in the conversation (a batch is stored whole or not
/// at all) and sent again only if it is not there. Every line is stored once, every id
/// printed once.
@Suite(.timeLimit(.minutes(1))) struct LineSenderRecoveryTests {
    /// What the fake daemon stored, and whether it has cut a call off yet.
    final class Store: Sendable {
        private let state = Mutex((texts: [String](), cutOff: false))
        var texts: [String] { state.withLock { $0.texts } }

        /// The first call is cut off: stored first or not, as `storeBeforeCut` says, and
        /// answered with nil. Later calls are stored and answered with their messages.
        func send(_ texts: [String], storeBeforeCut: Bool) -> [MessageInfo]? {
            state.withLock { state in
                let first = !state.cutOff
                state.cutOff = true
                if first && !storeBeforeCut { return nil }
                let start = state.texts.count
                state.texts += texts
                if first { return nil }
                return texts.enumerated().map { offset, text in
                    Self.info(seq: start + offset + 1, text: text)
                }
            }
        }

        var stored: [MessageInfo] {
            state.withLock { state in
                state.texts.enumerated().map { Self.info(seq: $0.offset + 1, text: $0.element) }
            }
        }

        static func info(seq: Int, text: String) -> MessageInfo {
            MessageInfo(
                id: "00000000-0000-4000-8000-\(String(repeating: "0", count: 11))\(seq)",
                peer: CLIFixtures.bobID, direction: .outgoing, seq: UInt64(seq), text: text,
                createdAt: CLIFixtures.now, status: .queued)
        }
    }

    /// A daemon that stores the first batch or not, then closes that connection without
    /// answering; later connections answer `send` and `history` from what it holds.
    static func server(_ store: Store, storeBeforeCut: Bool) throws -> CannedServer {
        try CannedServer { connection in
            while let line = connection.readLine() {
                let request = Request(line: line)
                switch request.method {
                case Methods.Send.name:
                    let texts = (try? request.params(SendParams.self))??.texts ?? []
                    guard let stored = store.send(texts, storeBeforeCut: storeBeforeCut) else {
                        return  // the connection closes with the call unanswered
                    }
                    connection.write(Reply.result(request, SendResult(messages: stored)) + "\n")
                default:
                    connection.write(
                        Reply.result(
                            request,
                            HistoryResult(
                                peer: CLIFixtures.bob, messages: store.stored, hasOlder: false))
                            + "\n")
                }
            }
        }
    }

    func run(storeBeforeCut: Bool) async throws -> (store: Store, printed: [String], code: Int32) {
        let store = Store()
        let server = try Self.server(store, storeBeforeCut: storeBeforeCut)
        defer { server.stop() }
        let input = InputPipe(closedWith: Array("one\ntwo\nthree\n".utf8))
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            ["send", "bob", "--lines"], socket: server.path, standardInput: input.readEnd,
            output: captured)
        let printed = captured.output.split(separator: "\n").map(String.init)
        return (store, printed, code)
    }

    @Test func aBatchStoredBeforeTheCutIsNotSentAgainAndItsIdsArePrinted() async throws {
        let (store, printed, code) = try await run(storeBeforeCut: true)
        #expect(code == 0)
        #expect(store.texts == ["one", "two", "three"])
        #expect(printed == store.stored.map(\.id))
    }

    @Test func aBatchNotStoredBeforeTheCutIsSentAgainOnce() async throws {
        let (store, printed, code) = try await run(storeBeforeCut: false)
        #expect(code == 0)
        #expect(store.texts == ["one", "two", "three"])
        #expect(printed == store.stored.map(\.id))
    }
}
