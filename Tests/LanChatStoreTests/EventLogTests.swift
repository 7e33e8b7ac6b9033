import Foundation
import LanChatCore
import Synchronization
import Testing

@testable import LanChatStore

/// The durable event log: every write path logs exactly the events it should (the message
/// events come from triggers), in its own transaction, and the log reads, prunes and
/// announces its commits as `watch` needs.
@Suite("Event log")
struct EventLogTests {
    let bob = testKey(2)
    let carol = testKey(3)

    /// (type, peer, message seq, status) of every event after `cursor`.
    func logged(_ store: MessageStore, after cursor: Int64 = 0) async throws -> [Logged] {
        try await store.events(after: cursor, limit: 1_000).map {
            Logged($0.type, $0.peer, $0.message?.seq, $0.status)
        }
    }

    struct Logged: Equatable, CustomStringConvertible {
        let type: StoredEventType
        let peer: PeerKey?
        let seq: UInt64?
        let status: StoredStatus?
        init(
            _ type: StoredEventType, _ peer: PeerKey?, _ seq: UInt64? = nil,
            _ status: StoredStatus? = nil
        ) {
            self.type = type
            self.peer = peer
            self.seq = seq
            self.status = status
        }
        var description: String {
            "\(type.rawValue) seq \(seq.map(String.init) ?? "-") \(status.map { "\($0)" } ?? "-")"
        }
    }

    func newest(_ store: MessageStore) async throws -> Int64 {
        try await store.eventBounds().newest
    }

    @Test func peersLogPeerNewOnceWhenTheyAreFirstStored() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.storePath)
        #expect(try await store.eventBounds() == (nil, 0))
        let isNew = try await store.recordPeerSeen(
            bob, keyTag: "T", name: "bob", status: nil, statusText: nil, endpoint: nil, at: 10)
        let again = try await store.recordPeerSeen(
            bob, keyTag: "T", name: "bob", status: "away", statusText: nil, endpoint: nil, at: 10)
        try await store.addPeer(carol, keyTag: "U", name: "carol", at: 11)
        try await store.addPeer(carol, keyTag: "U", name: "caro", at: 12)
        try await store.addPeer(bob, keyTag: "T", name: nil, at: 13)
        try await store.logPresence(bob, .online(availability: "away"), at: 14)
        try await store.logPresence(bob, .offline, at: 15)
        #expect(isNew && !again)
        let events = try await store.events(after: 0, limit: 10)
        #expect(events.map(\.type) == [.peerNew, .peerNew, .peerPresence, .peerPresence])
        #expect(events.map(\.peer) == [bob, carol, bob, bob])
        #expect(events.map(\.at) == [10, 11, 14, 15])
        #expect(events.map(\.cursor) == [1, 2, 3, 4])
        // What each presence event logged, for a replay to show; no message status.
        #expect(events.map(\.presence) == [nil, nil, .online(availability: "away"), .offline])
        #expect(events.allSatisfy { $0.status == nil })
    }

    /// A key pinned at its handshake (no name yet) is announced by the write of its HELLO,
    /// once, so `peer.new` always has the peer's name; so is a key pinned ahead without one.
    @Test func aPeerPinnedBeforeItsHelloIsAnnouncedByTheHello() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.storePath)
        func seen(_ key: PeerKey, name: String?, at time: Int64) async throws -> Bool {
            try await store.recordPeerSeen(
                key, keyTag: "T", name: name, status: nil, statusText: nil, endpoint: nil,
                at: time)
        }
        #expect(try await seen(bob, name: nil, at: 10))
        #expect(try await store.events(after: 0, limit: 10).isEmpty)
        #expect(try await seen(bob, name: nil, at: 11) == false)
        #expect(try await seen(bob, name: "bob", at: 12) == false)
        #expect(try await seen(bob, name: "bob", at: 13) == false)
        // Pinned ahead with no name (a group's member, `--peer ID@`): announced by its first
        // HELLO too (found by QA: a member never met was announced nameless).
        try await store.addPeer(carol, keyTag: "U", name: nil, at: 14)
        #expect(try await store.events(after: 0, limit: 10).count == 1)
        #expect(try await seen(carol, name: "carol", at: 15) == false)
        #expect(try await seen(carol, name: "carol", at: 16) == false)
        let events = try await store.events(after: 0, limit: 10)
        #expect(events.map(\.type) == [.peerNew, .peerNew])
        #expect(events.map(\.peer) == [bob, carol])
        #expect(events.map(\.at) == [12, 15])
    }

    @Test func outgoingWritePathsLogEachStatusChangeOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        var mark = try await newest(store)
        let sent = try await store.enqueue(to: bob, texts: ["1", "2", "3", "4", "5"], at: 20)
        let stream = sent[0].stream
        #expect(
            try await logged(store, after: mark)
                == (1...5).map { Logged(.messageStatus, bob, $0, .queued) })
        let queuedEvents = try await store.events(after: mark, limit: 10)
        #expect(queuedEvents.map(\.at) == [20, 20, 20, 20, 20])
        #expect(queuedEvents.map(\.message?.id) == sent.map(\.id))

        mark = try await newest(store)
        _ = try await store.markDelivered(peer: bob, stream: stream, upTo: 1, at: 30)
        #expect(try await store.recordDelivered(peer: bob, stream: stream, upTo: 2, at: 31) == 1)
        _ = try await store.markDelivered(peer: bob, stream: stream, upTo: 2, at: 32)  // no change
        _ = try await store.markReadByPeer(peer: bob, stream: stream, upTo: 1, at: 33)
        _ = try await store.markFailed(peer: bob, stream: stream, seq: 3, reason: "too big")
        _ = try await store.markFailed(peer: bob, stream: stream, seq: 3, reason: "again")
        _ = try await store.applyResume(
            peer: bob, stream: stream, deliveredUpTo: 4, readUpTo: 2, at: 34)
        #expect(
            try await logged(store, after: mark) == [
                Logged(.messageStatus, bob, 1, .delivered),
                Logged(.messageStatus, bob, 2, .delivered),
                Logged(.messageStatus, bob, 1, .read),
                Logged(.messageStatus, bob, 3, .failed),
                Logged(.messageStatus, bob, 4, .delivered),
                Logged(.messageStatus, bob, 2, .read),
            ])
        let times = try await store.events(after: mark, limit: 10).map(\.at)
        #expect(times[0] == 30 && times[1] == 31 && times[2] == 33 && times[4] == 34)

        mark = try await newest(store)
        _ = try await store.rotateStream(to: bob, newStreamID: { 99 })  // renumbers, same status
        let requeued = try await store.requeueFailed(peer: bob)
        #expect(
            try await logged(store, after: mark) == [
                Logged(.messageStatus, bob, requeued[0].seq, .queued)
            ])
        // The joined message is the row as it is now; the event keeps the status it reported.
        let replay = try await store.events(after: 0, limit: 100)
        let firstQueued = try #require(replay.first { $0.message?.id == sent[0].id })
        #expect(firstQueued.status == .queued && firstQueued.message?.status == .read)
    }

    @Test func incomingMessagesLogReceivedOnceAndDuplicatesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let mark = try await newest(store)
        let records = incomingRecords(stream: 5, seqs: 1...2)
        let cursor = IncomingCursor(stream: 5, delivered: 2, read: 0)
        _ = try await store.commitIncoming(from: bob, records: records, cursor: cursor, at: 50)
        _ = try await store.commitIncoming(from: bob, records: records, cursor: cursor, at: 51)
        let events = try await store.events(after: mark, limit: 10)
        #expect(events.map(\.type) == [.messageReceived, .messageReceived])
        #expect(events.map(\.message?.text) == ["m1", "m2"])
        #expect(events.map(\.at) == [50, 50])
        #expect(events.allSatisfy { $0.status == nil && $0.peer == bob })
    }

    @Test func aWriteThatFailsLogsNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let mark = try await newest(store)
        await #expect(throws: StoreError.self) {
            try await store.enqueue(to: testKey(9), texts: ["x"], at: 1)
        }
        // The cursor write fails after the message (and its event) was inserted: the
        // transaction rolls back as a whole.
        try await store.executeForTesting(
            "CREATE TRIGGER refuse BEFORE INSERT ON in_cursors BEGIN SELECT raise(ABORT, 'no'); END"
        )
        let record = incomingRecords(stream: 5, seqs: 1...1)[0]
        await #expect(throws: StoreError.self) {
            _ = try await store.commitIncoming(
                from: bob, records: [record],
                cursor: IncomingCursor(stream: 5, delivered: 1, read: 0), at: 1)
        }
        #expect(try await newest(store) == mark)
        #expect(try await store.history(with: bob, limit: 5).messages.isEmpty)
    }

    @Test func eventsPageInCursorOrder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        _ = try await store.enqueue(to: bob, texts: (1...10).map { "\($0)" }, at: 20)
        var cursor: Int64 = 0
        var pages: [[Int64]] = []
        while case let page = try await store.events(after: cursor, limit: 4), !page.isEmpty {
            pages.append(page.map(\.cursor))
            cursor = page[page.count - 1].cursor
        }
        #expect(pages == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11]])
        #expect(try await store.eventBounds() == (1, 11))
    }

    @Test func pruningKeepsTheNewestAndTheRecentAndNeverLeavesAHole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.storePath)
        for at: Int64 in [10, 20, 5, 30, 40, 50] {
            try await store.logPresence(bob, .online(availability: nil), at: at)
        }
        // Only the newest 4 must stay: cursors 1 and 2 may go, but 2 is recent (at 20).
        #expect(try await store.pruneEvents(keepAtLeast: 4, newerThan: 15) == 1)
        #expect(try await store.eventBounds() == (2, 6))
        // Cursor 3 is old (at 5) but follows a recent one: only a prefix is ever pruned.
        #expect(try await store.pruneEvents(keepAtLeast: 0, newerThan: 25) == 2)
        #expect(try await store.eventBounds() == (4, 6))
        // Everything old: the newest stays all the same, so no cursor is ever given again.
        #expect(try await store.pruneEvents(keepAtLeast: 0, newerThan: 1_000) == 2)
        #expect(try await store.eventBounds() == (6, 6))
        try await store.logPresence(bob, .online(availability: nil), at: 60)
        #expect(try await store.events(after: 0, limit: 10).map(\.cursor) == [6, 7])
    }

    @Test func theCommitHookRunsOncePerCommitThatLoggedEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let commits = Mutex(0)
        let store = try MessageStore.open(
            path: directory.storePath, onEventsCommitted: { commits.withLock { $0 += 1 } })
        try await store.addPeer(bob, keyTag: "T", name: "bob", at: 1)  // peer.new
        #expect(commits.withLock { $0 } == 1)
        _ = try await store.enqueue(to: bob, texts: ["a", "b", "c"], at: 2)  // one commit
        #expect(commits.withLock { $0 } == 2)
        try await store.recordAddress(bob, endpoint: Endpoint(host: "10.0.0.1", port: 1), at: 3)
        try await store.addPeer(bob, keyTag: "T", name: "bobby", at: 4)
        _ = try await store.markRead(peer: nil, at: 5)  // nothing unread
        #expect(commits.withLock { $0 } == 2)
        await #expect(throws: StoreError.self) {
            try await store.enqueue(to: testKey(9), texts: ["x"], at: 6)
        }
        #expect(commits.withLock { $0 } == 2)
        _ = try await store.markDelivered(
            peer: bob, stream: try #require(try await store.outgoingState(for: bob)).stream,
            upTo: 1, at: 7)
        #expect(commits.withLock { $0 } == 3)
    }

    /// The hook must cost the same on the thousandth commit as on the first. Kept bare in a
    /// generic `Mutex`, the closure gained two reabstraction thunks each time it was handed
    /// out, so every call went two frames deeper than the last, and after some 120 000 commits
    /// the writer's stack overflowed and the daemon crashed. The depth of the stack the hook
    /// runs on is what shows it (Foundation reports at most 128 frames, far above the hook's
    /// own depth, and a growing chain reaches that within 100 commits).
    @Test func theCommitHookRunsAtTheSameStackDepthOnEveryCommit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let depths = Mutex<[Int]>([])
        let store = try MessageStore.open(
            path: directory.storePath,
            onEventsCommitted: {
                let depth = Thread.callStackReturnAddresses.count
                depths.withLock { $0.append(depth) }
            })
        try await store.addPeer(bob, keyTag: "T", name: "bob", at: 1)
        for at in 2...301 {
            try await store.logPresence(bob, .online(availability: nil), at: Int64(at))
        }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 301)
        let presence = Array(seen.dropFirst())
        #expect(try #require(presence.first) < 100)
        #expect(
            presence.max() == presence.min(),
            "hook's stack depth went from \(presence.first ?? 0) to \(presence.last ?? 0)")
    }
}
