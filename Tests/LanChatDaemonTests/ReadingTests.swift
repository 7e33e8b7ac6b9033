import Foundation
import LanChatClient
import LanChatControl
import LanChatCore
import Testing

@testable import LanChatDaemon

/// The reading half of PRODUCT.md §4–§5 through whole daemons: read receipts (PROTOCOL.md
/// §9.5) live, after an absence and turned off; the inbox; and `watch`: replay after a gap,
/// live with no gap and no repeat, and a reader that stops reading.
@Suite("Reading between in-process daemons", .serialized, .timeLimit(.minutes(3)))
struct ReadingTests {
    @Test func readingMarksReadSendsReadAndWaitReadCompletes() async throws {
        try await withConnectedPair { alice, bob in
            let waiting = Task {
                try await alice.client.send(
                    SendParams(peer: "bob", text: "please read", waitRead: true, timeout: 20))
            }
            try await eventually("bob has it unread") {
                try await bob.client.status().unread == 1
            }
            let inbox = try await bob.client.inbox()
            #expect(inbox.conversations.map(\.peer?.id) == [alice.id])
            #expect(inbox.conversations.first?.unread == 1)
            let read = try await bob.client.read(ReadParams(peer: "alice"))
            #expect(read.messages.map(\.text) == ["please read"])
            #expect(read.messages.allSatisfy { $0.read == true })
            #expect(try await bob.client.status().unread == 0)
            #expect(try await bob.client.inbox().conversations.first?.unread == 0)
            let answer = try await waiting.value
            #expect(answer.messages?.first?.status == .read)
            let shown = try await alice.history(with: bob)
            #expect(shown.first?.status == .read && shown.first?.readAt != nil)
            // Nothing more to read: an empty answer, nothing sent.
            #expect(try await bob.client.read().messages.isEmpty)
        }
    }

    /// `from` and `through` mark part of a conversation: what a reader showed. The receipt
    /// covers what is read without a gap from the stream's start (READ is cumulative), so
    /// the sender sees "read" only once the older ones are read too.
    @Test func aSpanOfAConversationIsMarkedAndItsReceiptWaitsForTheOlderOnes() async throws {
        try await withConnectedPair { alice, bob in
            let sent = try await alice.client.send(
                SendParams(peer: "bob", texts: (1...5).map { "m\($0)" }, wait: true, timeout: 20))
            let ids = try #require(sent.messages).map(\.id)
            let middle = try await bob.client.read(
                ReadParams(peer: "alice", from: ids[1], through: ids[3]))
            #expect(middle.messages.map(\.text) == ["m2", "m3", "m4"])
            #expect(try await bob.client.status().unread == 2)
            #expect(
                try await alice.history(with: bob).map(\.status)
                    == Array(repeating: .delivered, count: 5))
            // The first one read: the receipt covers it and the span after it, not m5.
            let first = try await bob.client.read(ReadParams(peer: "alice", through: ids[0]))
            #expect(first.messages.map(\.text) == ["m1"])
            try await eventually("alice sees m1 to m4 read") {
                try await alice.history(with: bob).map(\.status)
                    == [.read, .read, .read, .read, .delivered]
            }
            let rest = try await bob.client.read(ReadParams(peer: "alice", from: ids[2]))
            #expect(rest.messages.map(\.text) == ["m5"])
            // Refused: an id of no message here, a span without a conversation, not an id.
            let client = bob.client
            let stranger = UUID().uuidString.lowercased()
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.read(ReadParams(peer: "alice", through: stranger))
                } == 65)
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.read(ReadParams(from: ids[0]))
                } == 64)
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.read(ReadParams(peer: "alice", from: "x"))
                }
                    == 64)
        }
    }

    /// A group's span: its messages from one to another, the sender's receipt waiting on
    /// the older ones as in a 1:1 conversation.
    @Test func aSpanOfAGroupIsMarked() async throws {
        try await withConnectedPair { alice, bob in
            let group = try await alice.createGroup("team", members: ["bob"], seenBy: [bob])
            let sent = try await alice.client.send(
                SendParams(peer: "#team", texts: ["g1", "g2", "g3"], wait: true, timeout: 20))
            let ids = try #require(sent.messages).map(\.id)
            let read = try await bob.client.read(
                ReadParams(peer: group.id, from: ids[1], through: ids[1]))
            #expect(read.messages.map(\.text) == ["g2"])
            #expect(try await bob.client.status().unread == 2)
            let stranger = UUID().uuidString.lowercased()
            let client = bob.client
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.read(ReadParams(peer: group.id, from: stranger))
                } == 65)
        }
    }

    /// A `waitRead` that runs out on a delivered message says it was delivered, not that it
    /// is still queued for a peer who is online.
    @Test func waitReadTimeoutOnADeliveredMessageSaysItWasDelivered() async throws {
        try await withConnectedPair { alice, _ in
            do {
                _ = try await alice.client.send(
                    SendParams(peer: "bob", text: "unread", waitRead: true, timeout: 3))
                Issue.record("a message nobody read was reported read")
            } catch let error as ControlError {
                #expect(error.exitCode == 75)
                #expect(error.message.hasPrefix("delivered but not read within 3 s"), "\(error)")
                #expect(error.data?.messageIDs?.count == 1)
            }
        }
    }

    @Test func aReadWhileTheSenderIsAwayReachesItWhenItReturns() async throws {
        try await withConnectedPair { alice, bob in
            let sent = try await alice.client.send(
                SendParams(peer: "bob", texts: ["one", "two"], wait: true, timeout: 20))
            #expect(try #require(sent.messages).allSatisfy { $0.status == .delivered })
            try await alice.stopAndWaitOffline(seenBy: bob)
            #expect(try await bob.client.read().messages.map(\.text) == ["one", "two"])
            try await alice.restart()
            // Carried by bob's HELLO (in_read) on the next session.
            try await eventually("alice sees both read") {
                try await alice.history(with: bob).allSatisfy { $0.status == .read }
            }
        }
    }

    /// A replay shows each presence event as it was logged: alice offline, then online,
    /// then away, then available again, though she is online and available when it runs.
    @Test func aReplayedPresenceEventShowsThePresenceItLogged() async throws {
        try await withConnectedPair { alice, bob in
            let since = try #require(
                try await Self.collect(bob.client, WatchParams()) { _ in true }.start?.cursor)
            try await alice.stopAndWaitOffline(seenBy: bob)
            try await alice.restart()
            try await eventually("online again") { await bob.isOnline(alice) }
            // Away, available again, then a new status text alone: three events more.
            for (status, text) in [(Availability.away, ""), (.available, ""), (.available, "back")]
            {
                _ = try await alice.client.presence(PresenceParams(status: status, text: text))
                try await eventually("bob sees alice \(status) '\(text)'") {
                    let seen = try await bob.client.who().peers.first
                    return seen?.status == status && seen?.statusText == text
                }
            }
            var presences: [PeerInfo] = []
            for try await update in bob.client.watch(WatchParams(since: since)) {
                if case .event(let event) = update, event.type == .peerPresence,
                    let peer = event.peer
                {
                    presences.append(peer)
                }
                if presences.count >= 5 { break }
            }
            #expect(
                presences.map(\.presence) == [.offline, .online, .online, .online, .online],
                "\(presences)")
            #expect(
                presences.dropFirst().map(\.status) == [.available, .away, .available, .available])
            // Offline, alice was last seen then; online, she has no `lastSeen` (QA: the
            // offline event said null, built while she was still counted online).
            #expect(presences.first?.lastSeen != nil, "\(presences)")
            #expect(presences.dropFirst().allSatisfy { $0.lastSeen == nil }, "\(presences)")
        }
    }

    @Test func withReadReceiptsOffNothingEverShowsRead() async throws {
        let root = try TestRoot()
        defer { root.remove() }
        let alice = try await TestNode.start("alice", in: root)
        let bob = try await TestNode.start("bob", peers: [alice], in: root) {
            $0.readReceipts = false
        }
        try await eventually("online") { await alice.isOnline(bob) }
        _ = try await alice.client.send(
            SendParams(peer: "bob", text: "first", wait: true, timeout: 20))
        #expect(try await bob.client.read().messages.map(\.text) == ["first"])
        #expect(try await bob.client.status().unread == 0)
        // A READ would travel before the ACK of a later message on the same session.
        _ = try await alice.client.send(
            SendParams(peer: "bob", text: "second", wait: true, timeout: 20))
        #expect(try await alice.history(with: bob).map(\.status) == [.delivered, .delivered])
        // Nor does a new session's HELLO say anything was read.
        try await bob.stopAndWaitOffline(seenBy: alice)
        try await bob.restart()
        _ = try await alice.client.send(
            SendParams(peer: "bob", text: "third", wait: true, timeout: 20))
        #expect(try await alice.history(with: bob).allSatisfy { $0.status == .delivered })
        #expect(try await bob.client.read().messages.map(\.text) == ["second", "third"])
        // Found by QA: turned on again, the next HELLO reported everything read while they
        // were off. Nothing is reported until the user reads with receipts on.
        try await bob.stopAndWaitOffline(seenBy: alice)
        try await bob.restart(reconfigure: { $0.readReceipts = true })
        _ = try await alice.client.send(
            SendParams(peer: "bob", text: "fourth", wait: true, timeout: 20))
        #expect(try await alice.history(with: bob).allSatisfy { $0.status == .delivered })
        // A read with receipts on reports it, and, READ being cumulative, what came before.
        #expect(try await bob.client.read().messages.map(\.text) == ["fourth"])
        try await eventually("read reported") {
            try await alice.history(with: bob).allSatisfy { $0.status == .read }
        }
        await bob.stop()
        await alice.stop()
    }

    /// The inbox carries a preview of a long last message, marked `truncated`, and a query
    /// still finds words past it; history has the whole text (found by QA: 260 conversations
    /// of 64 KiB messages were an inbox answer over 16 MiB, which lanchat refused).
    @Test func theInboxCarriesAPreviewOfALongLastMessage() async throws {
        try await withConnectedPair { alice, bob in
            let long = String(repeating: "é", count: 700) + " needle"
            _ = try await alice.client.send(
                SendParams(peer: "bob", text: long, wait: true, timeout: 20))
            let last = try #require(try await bob.client.inbox().conversations.first?.lastMessage)
            #expect(last.truncated == true)
            #expect(last.text == String(repeating: "é", count: 512))
            let found = try await bob.client.inbox(InboxParams(query: "needle")).conversations
            #expect(found.count == 1 && found.first?.lastMessage?.truncated == true)
            let history = try await bob.client.history(HistoryParams(peer: "alice"))
            #expect(history.messages.map(\.text) == [long])
            #expect(history.messages.first?.truncated == nil)
        }
    }

    @Test func archivingHidesAConversationUntilANewMessageArrives() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await alice.client.send(
                SendParams(peer: "bob", text: "hello", wait: true, timeout: 20))
            let archived = try await bob.client.archive(ArchiveParams(peer: "alice"))
            #expect(archived.conversation.archived && archived.changed == true)
            let again = try await bob.client.archive(ArchiveParams(peer: "alice"))
            #expect(again.conversation.archived && again.changed == false)
            #expect(try await bob.client.inbox().conversations.isEmpty)
            #expect(
                try await bob.client.inbox(InboxParams(archived: true)).conversations.count == 1)
            _ = try await alice.client.send(
                SendParams(peer: "bob", text: "again", wait: true, timeout: 20))
            let inbox = try await bob.client.inbox().conversations
            #expect(inbox.map(\.lastMessage?.text) == ["again"])
            #expect(inbox.first?.archived == false)
            // Brought back by the message: unarchiving it changes nothing, and says so.
            let unarchived = try await bob.client.unarchive(ArchiveParams(peer: "alice"))
            #expect(!unarchived.conversation.archived && unarchived.changed == false)
        }
    }

    @Test func searchFindsWordsPrefixesAndPhrasesAndRefusesABadQuery() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await alice.client.send(
                SendParams(
                    peer: "bob", texts: ["the build failed", "build ok, failed tests", "Café"],
                    wait: true, timeout: 20))
            let phrase = try await bob.client.search(SearchParams(text: "\"build failed\""))
            #expect(phrase.messages.map(\.text) == ["the build failed"])
            let words = try await bob.client.search(SearchParams(text: "failed build"))
            #expect(words.messages.map(\.text) == ["build ok, failed tests", "the build failed"])
            #expect(
                try await bob.client.search(SearchParams(text: "caf*")).messages.map(\.text)
                    == ["Café"])
            do throws(ControlError) {
                _ = try await bob.client.search(SearchParams(text: "\"unterminated"))
                Issue.record("a malformed query was accepted")
            } catch {
                #expect(error.exitCode == 65 && !error.message.lowercased().contains("fts5"))
            }
        }
    }

    /// The events of a watch, collected until `done` says it has enough.
    static func collect(
        _ client: ControlClient, _ params: WatchParams,
        until done: @escaping @Sendable ([EventInfo]) -> Bool
    ) async throws -> (start: WatchResult?, events: [EventInfo]) {
        var start: WatchResult?
        var events: [EventInfo] = []
        for try await update in client.watch(params) {
            switch update {
            case .started(let result): start = result
            case .event(let event): events.append(event)
            }
            if done(events) { break }
        }
        return (start, events)
    }

    static func received(_ events: [EventInfo]) -> [String] {
        events.filter { $0.type == .messageReceived }.compactMap(\.message?.text)
    }

    @Test func watchSinceAfterAGapReplaysExactlyTheMissedEvents() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await alice.client.send(
                SendParams(peer: "bob", text: "before", wait: true, timeout: 20))
            let head = try await Self.collect(bob.client, WatchParams()) { _ in true }
            let since = try #require(head.start?.cursor)
            // Missed while nobody watched.
            _ = try await alice.client.send(
                SendParams(peer: "bob", texts: ["a", "b", "c"], wait: true, timeout: 20))
            let replay = try await Self.collect(bob.client, WatchParams(since: since)) {
                Self.received($0).count == 3
            }
            #expect(Self.received(replay.events) == ["a", "b", "c"])
            let cursors = replay.events.compactMap { Int64($0.cursor) }
            let first = try #require(Int64(since)) + 1
            #expect(cursors == Array(first..<(first + Int64(cursors.count))))
        }
    }

    /// `conversation.read` carries the conversation after the read (lanchat-api(7)), not null.
    @Test func aConversationReadEventCarriesTheConversation() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await alice.client.send(
                SendParams(peer: "bob", texts: ["one", "two"], wait: true, timeout: 20))
            let head = try await Self.collect(bob.client, WatchParams()) { _ in true }
            let since = try #require(head.start?.cursor)
            _ = try await bob.client.read(ReadParams(peer: "alice"))
            let replay = try await Self.collect(bob.client, WatchParams(since: since)) {
                $0.contains { $0.type == .conversationRead }
            }
            let event = try #require(replay.events.first { $0.type == .conversationRead })
            let conversation = try #require(event.conversation)
            #expect(conversation.peer?.id == alice.id)
            #expect(conversation.unread == 0)
            #expect(conversation.lastMessage?.text == "two")
        }
    }

    /// Reading a group conversation is a `conversation.read` too, with the group's
    /// conversation and no peer.
    @Test func readingAGroupLogsItsConversationRead() async throws {
        try await withConnectedPair { alice, bob in
            let group = try await alice.createGroup("team", members: ["bob"], seenBy: [bob])
            _ = try await alice.client.send(
                SendParams(peer: group.id, text: "to the team", wait: true, timeout: 20))
            let head = try await Self.collect(bob.client, WatchParams()) { _ in true }
            let since = try #require(head.start?.cursor)
            _ = try await bob.client.read(ReadParams(peer: group.id))
            let replay = try await Self.collect(bob.client, WatchParams(since: since)) {
                $0.contains { $0.type == .conversationRead }
            }
            let event = try #require(replay.events.first { $0.type == .conversationRead })
            #expect(event.peer == nil)
            #expect(event.group?.id == group.id)
            #expect(event.conversation?.group?.id == group.id)
            #expect(event.conversation?.unread == 0)
        }
    }

    /// alice's 1:1 message and her group copy travel on one stream to bob, and READ covers a
    /// prefix of it: bob reading the group tells alice nothing while her earlier 1:1 message
    /// is unread; reading that too tells her both (found by QA: the 1:1 one showed read).
    @Test func readingAGroupDoesNotReportAnUnreadDirectMessageRead() async throws {
        try await withConnectedPair { alice, bob in
            let group = try await alice.createGroup("team", members: ["bob"], seenBy: [bob])
            let direct = try await alice.client.send(
                SendParams(peer: bob.id, text: "just for you", wait: true, timeout: 20))
            _ = try await alice.client.send(
                SendParams(peer: group.id, text: "to the team", wait: true, timeout: 20))
            _ = try await bob.client.read(ReadParams(peer: group.id))
            // A READ sent for it would be on the session before this reply, in order.
            let reply = try await bob.client.send(SendParams(peer: alice.id, text: "later"))
            let replyID = try #require(reply.ids.first)
            try await eventually("alice has bob's reply") {
                try await alice.history(with: bob).contains { $0.id == replyID }
            }
            let directID = try #require(direct.ids.first)
            let mine = try await alice.history(with: bob).first { $0.id == directID }
            #expect(mine?.status == .delivered, "\(String(describing: mine))")

            _ = try await bob.client.read(ReadParams(peer: alice.id))
            try await eventually("both read at alice") {
                let direct = try await alice.history(with: bob).first { $0.id == directID }
                let team = try await alice.client.history(HistoryParams(peer: group.id))
                return direct?.status == .read
                    && team.messages.first?.recipients?.first?.status == .read
            }
        }
    }

    @Test func watchGoesFromReplayToLiveWithNoGapAndNoRepeat() async throws {
        try await withConnectedPair { alice, bob in
            _ = try await alice.client.send(
                SendParams(peer: "bob", texts: (1...50).map { "early \($0)" }, wait: true))
            let texts = (1...300).map { "live \($0)" }
            let sender = Task {
                for chunk in stride(from: 0, to: texts.count, by: 30) {
                    _ = try await alice.client.send(
                        SendParams(peer: "bob", texts: Array(texts[chunk..<(chunk + 30)])))
                }
            }
            let all = try await Self.collect(bob.client, WatchParams(since: "0")) {
                Self.received($0).count == 350
            }
            try await sender.value
            #expect(Self.received(all.events) == (1...50).map { "early \($0)" } + texts)
            let cursors = all.events.compactMap { Int64($0.cursor) }
            #expect(cursors == Array(1...Int64(cursors.count)))
            // Opaque strings that increase (PRODUCT.md §4): as strings too, past 9 and 99.
            let cursorTexts = all.events.map(\.cursor)
            #expect(cursorTexts == cursorTexts.sorted())
            #expect(cursorTexts.allSatisfy { $0.count == 16 }, "\(cursorTexts.prefix(3))")
        }
    }

    @Test func aCursorOlderThanTheLogOrNotACursorIsRefused() async throws {
        try await withConnectedPair { _, bob in
            // What is not a cursor is said to be none, and an empty one how to start from now.
            let said = [
                "-1": "'-1' is not a cursor", "x7": "'x7' is not a cursor",
                "": "leave --since out to start from now",
                "999999999": "is not a cursor of this event log: the newest is",
                // The largest Int64: found by review, `since + 1` trapped and ended lanchatd.
                "9223372036854775807": "is not a cursor of this event log: the newest is",
                "+0000000000000001": "'+0000000000000001' is not a cursor",
                String(repeating: "0", count: 29) + "1": "is not a cursor (a number of 16 digits",
            ]
            for (bad, saying) in said {
                do {
                    _ = try await Self.collect(bob.client, WatchParams(since: bad)) { _ in true }
                    Issue.record("watch accepted the cursor \(bad)")
                } catch let error as ControlError {
                    // lanchat-api(7): cursorTooOld, with the oldest kept to start again from.
                    #expect(error.exitCode == 65)
                    #expect(error.data?.cursor != nil, "\(bad): \(error.message)")
                    #expect(error.message.contains(saying), "\(bad): \(error.message)")
                }
            }
        }
    }
}

/// A `watch` client that asks and then never reads: the daemon's writes to it block once the
/// socket's buffers are full, and nothing else may notice.
@Suite("A stalled watch reader", .serialized, .timeLimit(.minutes(5)))
struct StalledWatchTests {
    @Test func aReaderThatStopsReadingForAHundredThousandEventsSlowsNothing() async throws {
        try await withConnectedPair { alice, bob in
            let stalled = try StalledSocket(path: bob.socketPath)
            defer { stalled.close() }
            try stalled.write(#"{"jsonrpc":"2.0","id":1,"method":"watch","params":{}}"# + "\n")
            let count = 100_000
            var sent = 0
            while sent < count {
                let texts = (sent..<(sent + 1000)).map { "message \($0)" }
                _ = try await alice.client.send(SendParams(peer: "bob", texts: texts))
                sent += texts.count
            }
            try await eventually("all delivered", timeout: .seconds(240)) {
                try await alice.client.status().queued == 0
            }
            #expect(try await bob.client.status().unread == count)
            // The stalled reader is still there, holding its connection, and got some events.
            #expect(stalled.bufferedBytes > 0)
        }
    }
}

/// A Unix-socket client that writes a request and never reads what comes back.
final class StalledSocket: @unchecked Sendable {
    private let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0, let address = UnixSocketAddress(path: path) else {
            throw CancellationError()
        }
        let connected = address.withSockaddr { connect(fd, $0, $1) }
        guard connected == 0 else { throw CancellationError() }
    }

    func write(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw CancellationError() }
    }

    /// What the daemon wrote that this side has not read.
    var bufferedBytes: Int32 {
        var pending: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &pending)
        return pending
    }

    func close() { _ = Glibc.close(fd) }
}

/// Bad input to the reading methods: clear errors with PRODUCT.md §4's exit codes, and the
/// daemon keeps serving.
@Suite("Bad input to the reading methods", .serialized, .timeLimit(.minutes(1)))
struct ReadingBadInputTests {
    static func code(_ call: () async throws -> Void) async -> Int32? {
        do {
            try await call()
            return nil
        } catch let error as ControlError {
            return error.exitCode
        } catch {
            return -1
        }
    }

    @Test func unknownPeersEmptyOrOversizedQueriesAndBadLimitsAreRefused() async throws {
        try await withConnectedPair { alice, bob in
            let client = bob.client
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.read(ReadParams(peer: "nobody"))
                } == 67)
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.archive(ArchiveParams(peer: "nobody"))
                }
                    == 67)
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.search(SearchParams(text: " "))
                } == 65)
            let huge = String(repeating: "x", count: 2_000)
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.search(SearchParams(text: huge))
                } == 65)
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.search(SearchParams(text: "ok", limit: 0))
                }
                    == 64)
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.search(SearchParams(text: "ok", peer: "nobody"))
                } == 67)
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.inbox(InboxParams(query: huge))
                } == 65)
            // No conversation yet: archiving it fails (exit 1) and creates nothing.
            #expect(
                await ReadingBadInputTests.code {
                    _ = try await client.archive(ArchiveParams(peer: "alice"))
                }
                    == 1)
            #expect(try await client.inbox(InboxParams(archived: true)).conversations.isEmpty)
            do {
                for try await _ in client.watch(WatchParams(peer: "nobody")) {}
                Issue.record("watch accepted an unknown peer")
            } catch let error as ControlError {
                #expect(error.exitCode == 67)
            }
            #expect(try await client.status().peersOnline == 1)
            _ = alice
        }
    }
}
