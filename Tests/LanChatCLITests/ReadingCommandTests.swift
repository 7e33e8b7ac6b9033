import FoundationEssentials
import LanChatControl
import Testing

@testable import LanChatCLI

/// `inbox`, `read`, `archive`, `unarchive` and `search` as whole commands against the fake
/// daemon: what they send, print and exit with.
@Suite(.timeLimit(.minutes(1))) struct ReadingCommandTests {
    /// `read` asks until no answer says "more" and prints them as one: each conversation's
    /// messages together, in the order the conversations first came (found by QA: printed
    /// answer by answer, a conversation's header came again for each 2 MiB).
    @Test func answersAreJoinedByConversation() {
        func message(_ id: String, peer: String, group: String? = nil) -> MessageInfo {
            var message = MessageInfo(
                id: id, peer: peer, direction: .incoming, seq: 1, text: id,
                createdAt: CLIFixtures.now)
            message.group = group
            return message
        }
        let joined = ReadCommand.byConversation([
            message("a1", peer: "A"), message("g1", peer: "A", group: "G"),
            message("b1", peer: "B"), message("a2", peer: "A"),
            message("g2", peer: "B", group: "G"),
        ])
        #expect(joined.map(\.id) == ["a1", "a2", "g1", "g2", "b1"])
    }

    func run(_ arguments: [String], server: CannedServer?) async -> CommandRunTests.Outcome {
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(arguments, socket: server?.path, output: captured)
        return .init(code: code, output: captured.output, error: captured.error)
    }

    /// The params of every request of `type` the daemon received.
    func received<Params: Decodable>(_ type: Params.Type, method: String, _ server: CannedServer)
        async -> [Params]
    {
        server.stop()
        var params: [Params] = []
        for await line in server.requests {
            let request = Request(line: line)
            if request.method == method, let decoded = try? request.params(type) {
                params.append(decoded)
            }
        }
        return params
    }

    @Test func inboxListsConversationsAndPassesItsOptions() async throws {
        let server = try FakeDaemon.start()
        let outcome = await run(["inbox", "bo"], server: server)
        #expect(outcome.code == 0)
        #expect(
            outcome.output
                == "● bob@laptop (Bob)  2  deploy done" + String(repeating: " ", count: 13) + "5m\n"
                + "○ carol@desk" + String(repeating: " ", count: 11)
                + "You: see you monday ✓✓  Yesterday\n")
        #expect(
            await received(InboxParams.self, method: "inbox", server)
                == [InboxParams(query: "bo")])
    }

    @Test func emptyArchivedInboxSaysSo() async throws {
        let server = try FakeDaemon.start()
        let outcome = await run(["inbox", "--archived"], server: server)
        #expect(outcome.code == 0)
        #expect(outcome.output == "No archived conversations.\n")
        #expect(
            await received(InboxParams.self, method: "inbox", server)
                == [InboxParams(archived: true)])
    }

    @Test func inboxJSONIsTheResultObject() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["inbox", "--json"], server: server)
        let decoded = try ControlJSON.decoder().decode(
            InboxResult.self, from: Data(outcome.output.utf8))
        #expect(
            decoded
                == InboxResult(conversations: [
                    CLIFixtures.bobConversation, CLIFixtures.carolConversation,
                ]))
    }

    @Test func readPrintsTheMessagesInTheHistoryLayoutWithNames() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["read", "bob"], server: server)
        #expect(outcome.code == 0, "\(outcome.error)")
        #expect(
            outcome.output
                == "bob@laptop (Bob)  BOBB-2345  online, away\n"
                + "── Yesterday ──\n"
                + "18:00  Bob  is the build green?\n"
                + "── Today ──\n"
                + "11:55  Bob  deploy done\n")
    }

    @Test func readWithNothingUnreadSaysSo() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["read", "carol"], server: server)
        #expect(outcome.code == 0)
        #expect(outcome.output == "No unread messages from carol.\n")
        // A group is named as one (found by QA: "from ops").
        for group in ["ops", "#ops"] {
            let read = await run(["read", group], server: server)
            #expect(read.output == "No unread messages in #ops.\n", "\(group)")
        }
    }

    @Test(arguments: [["read", "nobody"], ["archive", "nobody"], ["unarchive", "nobody"]])
    func unknownPeerExits67(arguments: [String]) async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(arguments, server: server)
        #expect(outcome.code == 67)
        #expect(outcome.error.hasPrefix("lanchat: no peer matches 'nobody'\n"))
    }

    @Test func archiveAndUnarchiveConfirmInOneLine() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let archived = await run(["archive", "bob"], server: server)
        #expect(archived.code == 0)
        #expect(
            archived.output
                == "Archived the conversation with bob@laptop (Bob); 'lanchat inbox --archived' "
                + "lists it.\n")
        // Said as it is when nothing changes (found by QA: the same confirmation twice).
        let again = await run(["archive", "bob"], server: server)
        #expect(
            again.output
                == "The conversation with bob@laptop (Bob) was archived already; "
                + "'lanchat inbox --archived' lists it.\n")
        let unarchived = await run(["unarchive", "bob"], server: server)
        #expect(unarchived.code == 0)
        #expect(
            unarchived.output == "The conversation with bob@laptop (Bob) is back in the inbox.\n")
        let notArchived = await run(["unarchive", "bob"], server: server)
        #expect(
            notArchived.output
                == "The conversation with bob@laptop (Bob) was not archived; it is in the inbox.\n")
    }

    @Test func searchJoinsWordsAndPassesItsOptions() async throws {
        let server = try FakeDaemon.start()
        let outcome = await run(
            ["search", "deploy", "done", "--peer", "bob", "--limit", "5"], server: server)
        #expect(outcome.code == 0)
        #expect(
            outcome.output
                == "30m  Bob: Deploy done at the café\n"
                + "Thu  You → Bob: redeploy tomorrow\n")
        #expect(
            await received(SearchParams.self, method: "search", server)
                == [SearchParams(text: "deploy done", peer: "bob", limit: 5)])
    }

    @Test func searchHighlightsOnlyWithColour() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let colored = await run(["search", "cafe", "--color", "always"], server: server)
        #expect(colored.output.contains("at the \u{1B}[1;7mcafé\u{1B}[0m"))
        let plain = await run(["search", "cafe"], server: server)
        #expect(!plain.output.contains("\u{1B}"))
    }

    @Test func searchFindingNothingSaysSo() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["search", "nothing"], server: server)
        #expect(outcome.code == 0)
        #expect(outcome.output == "No messages match 'nothing'.\n")
    }

    @Test func malformedQueryIsTheDaemonsBadInput() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["search", "\"deploy"], server: server)
        #expect(outcome.code == 65)
        #expect(outcome.error == "lanchat: unterminated phrase in the query\n")
    }

    @Test(arguments: ["0", "1001", "x"])
    func searchLimitOutOfRangeExits64WithoutConnecting(limit: String) async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let outcome = await run(["search", "deploy", "--limit", limit], server: server)
        #expect(outcome.code == 64)
        #expect(server.connectionCount == 0)
    }
}
