import Foundation
import LanChatCore
import Synchronization
import Testing

@testable import LanChatStore

@Suite("Message store on a real SQLite file")
struct StoreTests {
    let bob = testKey(2)

    @Test func theFileIsPrivateAndDurable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.storePath)
        var info = stat()
        #expect(stat(directory.storePath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let settings = try await store.durabilitySettings()
        #expect(settings.journalMode == "wal")
        #expect(settings.synchronous == 2)  // FULL
    }

    /// A store file that exists readable by others (restored by a copy that kept the
    /// umask's mode) is made private when it is opened.
    @Test func anExistingStoreReadableByOthersIsMadePrivate() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let created = open(directory.storePath, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(created >= 0)
        close(created)
        #expect(chmod(directory.storePath, 0o644) == 0)
        let store = try MessageStore.open(path: directory.storePath)
        _ = try await store.durabilitySettings()
        for file in [directory.storePath, directory.storePath + "-wal"] {
            var info = stat()
            #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(file)")
        }
        try store.close()
    }

    /// A store kept elsewhere through a link: the file it points to is made private, and
    /// SQLite's -wal and -shm beside it (found by QA: 0644, message text readable by all).
    @Test func aLinkedStoreIsMadePrivateWhereItIs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let elsewhere = directory.path + "/elsewhere"
        #expect(mkdir(elsewhere, 0o755) == 0)
        let target = elsewhere + "/store.db"
        for file in [target, target + "-wal"] {
            let created = open(file, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            #expect(created >= 0)
            close(created)
            #expect(chmod(file, 0o644) == 0)
        }
        #expect(symlink(target, directory.storePath) == 0)
        let store = try MessageStore.open(path: directory.storePath)
        _ = try await store.durabilitySettings()
        for file in [target, target + "-wal", target + "-shm"] {
            var info = stat()
            #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(file)")
        }
        try store.close()
    }

    @Test func enqueueAssignsOneStreamAndConsecutiveSeqsThatSurviveAReopen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try await openStoreWithPeer(directory, peer: bob)
            let first = try await store.enqueue(to: bob, texts: ["a", "b"], at: 2_000)
            let second = try await store.enqueue(to: bob, texts: ["c"], at: 2_001)
            #expect(first.map(\.seq) == [1, 2])
            #expect(second.map(\.seq) == [3])
            #expect(Set((first + second).map(\.stream)).count == 1)
            #expect(first[0].stream != 0)
        }
        let reopened = try MessageStore.open(path: directory.storePath)
        let state = try #require(try await reopened.outgoingState(for: bob))
        #expect(state.nextSeq == 4)
        #expect(state.firstUndelivered == 1)
        let page = try await reopened.history(with: bob, limit: 10)
        #expect(page.messages.map(\.text) == ["a", "b", "c"])
        #expect(page.messages.allSatisfy { $0.status == .queued })
        #expect(try await reopened.counts().queued == 3)
    }

    @Test func enqueueToAnUnknownPeerStoresNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.storePath)
        await #expect(throws: StoreError.self) {
            try await store.enqueue(to: testKey(9), texts: ["x"], at: 1)
        }
        #expect(try await store.counts().queued == 0)
    }

    /// SQLite would keep only what precedes a NUL; the store refuses such a text instead of
    /// cutting it silently, and writes nothing of the batch.
    @Test func aTextWithNULIsRefusedAndNothingIsStored() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        await #expect(throws: StoreError.self) {
            try await store.enqueue(to: bob, texts: ["fine", "cut\u{0}here"], at: 1)
        }
        let incoming = WireMessage(stream: 5, seq: 1, id: .random(), sentAt: 1, text: "x")
        await #expect(throws: StoreError.self) {
            try await store.commitIncoming(
                from: bob, records: [.init(message: incoming, text: "in\u{0}coming")],
                cursor: IncomingCursor(stream: 5, delivered: 1, read: 0), at: 2)
        }
        #expect(try await store.history(with: bob, limit: 10).messages.isEmpty)
        #expect(try await store.incomingCursor(from: bob) == IncomingCursor())
        do {
            _ = try await store.enqueue(to: bob, texts: ["x\u{0}"], at: 1)
        } catch {
            #expect(error.kind == .invalidText)
        }
    }

    @Test func deliveryReadAndRejectionMoveStatusesForwardOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let sent = try await store.enqueue(to: bob, texts: ["1", "2", "3", "4"], at: 10)
        let stream = sent[0].stream
        let failed = try await store.markFailed(
            peer: bob, stream: stream, seq: 2, reason: "too big")
        #expect(failed?.status == .failed)
        let delivered = try await store.markDelivered(peer: bob, stream: stream, upTo: 3, at: 20)
        #expect(delivered.map(\.seq) == [1, 3])
        #expect(try await store.markDelivered(peer: bob, stream: stream, upTo: 3, at: 21).isEmpty)
        #expect(try await store.recordDelivered(peer: bob, stream: stream, upTo: 3, at: 22) == 0)
        // Delivery bookkeeping commits without its own fsync, and leaves the writer FULL.
        #expect(try await store.durabilitySettings().synchronous == 2)
        let read = try await store.markReadByPeer(peer: bob, stream: stream, upTo: 4, at: 30)
        #expect(read.map(\.seq) == [1, 3, 4])
        let page = try await store.history(with: bob, limit: 10).messages
        #expect(page.map(\.status) == [.read, .failed, .read, .read])
        #expect(page[1].failReason == "too big")
        #expect(page[3].deliveredAt == 30)
        #expect(try await store.outgoingState(for: bob)?.firstUndelivered == nil)
    }

    @Test func recordingDeliveryWithoutRowsChangesWhatMarkingDoes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let sent = try await store.enqueue(to: bob, texts: ["1", "2", "3", "4"], at: 10)
        let stream = sent[0].stream
        _ = try await store.markFailed(peer: bob, stream: stream, seq: 2, reason: "too big")
        #expect(try await store.recordDelivered(peer: bob, stream: stream, upTo: 3, at: 20) == 2)
        #expect(try await store.recordDelivered(peer: bob, stream: stream, upTo: 3, at: 21) == 0)
        let page = try await store.history(with: bob, limit: 10).messages
        #expect(page.map(\.status) == [.delivered, .failed, .delivered, .queued])
        #expect(page.map(\.deliveredAt) == [20, nil, 20, nil])
        #expect(try await store.outgoingState(for: bob)?.firstUndelivered == 4)
    }

    /// Coalesced ACKs are written in one transaction, each message with the time of the ACK
    /// that covered it first; a step written again changes nothing.
    @Test func deliveryStepsKeepEachMessagesOwnAckTime() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let sent = try await store.enqueue(to: bob, texts: ["1", "2", "3", "4", "5"], at: 10)
        let stream = sent[0].stream
        let first = [DeliveryStep(upTo: 1, at: 20), DeliveryStep(upTo: 3, at: 25)]
        let marked = try await store.markDelivered(peer: bob, stream: stream, steps: first)
        #expect(marked.map(\.seq) == [1, 2, 3])
        #expect(marked.map(\.deliveredAt) == [20, 25, 25])
        let again = first + [DeliveryStep(upTo: 4, at: 31)]
        #expect(try await store.recordDelivered(peer: bob, stream: stream, steps: again) == 1)
        let page = try await store.history(with: bob, limit: 10).messages
        #expect(page.map(\.deliveredAt) == [20, 25, 25, 31, nil])
        let logged = try await store.events(after: 0, limit: 100).filter { $0.status == .delivered }
        #expect(logged.map(\.at) == [20, 25, 25, 31])
    }

    @Test func retryMovesAFailedMessageToTheEndOfTheStream() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let sent = try await store.enqueue(to: bob, texts: ["1", "2"], at: 10)
        _ = try await store.markFailed(peer: bob, stream: sent[0].stream, seq: 1, reason: "no")
        let requeued = try await store.requeueFailed(id: sent[0].id)
        #expect(requeued.map(\.id) == [sent[0].id])
        #expect(requeued.first?.seq == 3)
        #expect(requeued.first?.status == .queued)
        #expect(try await store.outgoingState(for: bob)?.nextSeq == 4)
        #expect(try await store.requeueFailed().isEmpty)
    }

    /// A failed group copy goes out again as a group message: what `requeueFailed` returns is
    /// what the link sends, so it carries the group.
    @Test func retryKeepsAGroupCopysGroup() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let group = try #require(GroupID(bytes: [UInt8](repeating: 7, count: 16)))
        let copies = try await store.enqueueGroup(group, to: [bob], texts: ["to all"], at: 10)
        let copy = try #require(copies[bob]?.first)
        _ = try await store.markFailed(peer: bob, stream: copy.stream, seq: copy.seq, reason: "x")
        let requeued = try await store.requeueFailed(id: copy.id)
        #expect(requeued.map(\.group) == [group])
    }

    /// A group copy refused at once (the member blocked) is stored outside any stream; when
    /// it is the first message ever sent to that member, retrying it starts a stream rather
    /// than leave the copy failed for good (found by QA: `retry` after `unblock` said there
    /// was nothing to retry).
    @Test func retryStartsAStreamForAPeerThatHadNone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let group = try #require(GroupID(bytes: [UInt8](repeating: 7, count: 16)))
        let copies = try await store.enqueueGroup(
            group, to: [bob], refused: [bob: "blocked; unblock to send"], texts: ["to all"],
            at: 10)
        let copy = try #require(copies[bob]?.first)
        #expect(copy.status == .failed && copy.stream == 0)
        #expect(try await store.outgoingState(for: bob) == nil)

        let requeued = try await store.requeueFailed(peer: bob, newStreamID: { 555 })
        #expect(requeued.map(\.id) == [copy.id])
        #expect(requeued.map(\.stream) == [555] && requeued.map(\.seq) == [1])
        #expect(requeued.map(\.status) == [.queued] && requeued.map(\.group) == [group])
        #expect(try await store.outgoingState(for: bob)?.nextSeq == 2)
    }

    @Test func rotationRenumbersQueuedMessagesOnAFreshStream() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let sent = try await store.enqueue(to: bob, texts: ["1", "2", "3"], at: 10)
        _ = try await store.markDelivered(peer: bob, stream: sent[0].stream, upTo: 1, at: 11)
        let fresh = try await store.rotateStream(to: bob, newStreamID: { 777 })
        #expect(fresh == 777)
        let state = try #require(try await store.outgoingState(for: bob))
        #expect(state == OutgoingStreamState(stream: 777, nextSeq: 3, firstUndelivered: 1))
        let pending = try await store.outgoing(to: bob, stream: 777, from: 1, limit: 10)
        #expect(pending.map(\.text) == ["2", "3"])
    }

    /// The peer resumes at a seq we no longer hold (it went back to a backup; we purged
    /// since): what we hold from there on, delivered or read, is queued again on the new
    /// stream ahead of what was queued, so the peer gets it again (found by QA: it stayed
    /// "delivered" here and was never in the peer's store).
    @Test func aRotationResendsWhatThePeerLostPastAHole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let sent = try await store.enqueue(to: bob, texts: ["1", "2", "3", "4", "5"], at: 10)
        let stream = sent[0].stream
        _ = try await store.markDelivered(peer: bob, stream: stream, upTo: 4, at: 11)
        _ = try await store.markReadByPeer(peer: bob, stream: stream, upTo: 3, at: 12)
        // Message 2 gone (purged here), the peer resumes at 2.
        try await store.executeForTesting(
            "DELETE FROM messages WHERE direction = 1 AND text = '2'")
        let fresh = try await store.rotateStream(to: bob, resending: 2, newStreamID: { 888 })
        let resent = try await store.outgoing(to: bob, stream: fresh, from: 1, limit: 10)
        #expect(resent.map(\.text) == ["3", "4", "5"])
        #expect(resent.map(\.seq) == [1, 2, 3])
        #expect(resent.allSatisfy { $0.status == .queued && $0.deliveredAt == nil })
        // Before the hole, nothing moves: the peer has it.
        let history = try await store.history(with: bob, limit: 10).messages
        #expect(history.first { $0.text == "1" }?.status == .read)
    }

    /// Batch inserts work out each row's rowid without reading it back (consecutive from the
    /// last one) unless a conflict skipped rows; either way every returned rowid is that of
    /// the row with the message's id. 600 rows span chunks of 256, 256, 64, 16 and 8.
    @Test func everyStoredMessageCarriesItsRowsRowID() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let sent = try await store.enqueue(
            to: bob, texts: (0..<600).map { "out \($0)" }, at: 1)
        var received = try await store.commitIncoming(
            from: bob, records: incomingRecords(stream: 5, seqs: 1...300),
            cursor: IncomingCursor(stream: 5, delivered: 300, read: 0), at: 2)
        // A batch with ids already stored and one id twice: only the new rows, once each.
        var again = incomingRecords(stream: 6, seqs: 1...300)
        again[10] = .init(message: received[10].wire(stream: 6, seq: 11), text: received[10].text)
        again[200] = .init(message: received[77].wire(stream: 6, seq: 201), text: received[77].text)
        again[250] = again[249]
        let thinned = try await store.commitIncoming(
            from: bob, records: again, cursor: IncomingCursor(stream: 6, delivered: 300, read: 0),
            at: 3)
        #expect(thinned.count == 297)
        #expect(!thinned.contains { [received[10].id, received[77].id].contains($0.id) })
        received += thinned
        for message in sent + received {
            let row = try await store.messages(ids: [message.id]).first {
                $0.direction == message.direction
            }
            #expect(row?.rowID == message.rowID, "\(message.id)")
            #expect(row?.text == message.text)
        }
    }

    @Test func incomingMessagesAndTheirCursorCommitTogether() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let first = WireMessage(stream: 5, seq: 1, id: .random(), sentAt: 100, text: "hi")
        let second = WireMessage(stream: 5, seq: 2, id: .random(), sentAt: 101, text: "there")
        let stored = try await store.commitIncoming(
            from: bob,
            records: [.init(message: first, text: "hi"), .init(message: second, text: "there")],
            cursor: IncomingCursor(stream: 5, delivered: 2, read: 0), at: 200)
        #expect(stored.map(\.seq) == [1, 2])
        #expect(
            try await store.incomingCursor(from: bob)
                == IncomingCursor(stream: 5, delivered: 2, read: 0))
        // The same id again (a sender that lost its store and resent on a new stream) is
        // skipped, but the cursor still moves.
        var again = first
        again.stream = 6
        let skipped = try await store.commitIncoming(
            from: bob, records: [.init(message: again, text: "hi")],
            cursor: IncomingCursor(stream: 6, delivered: 1, read: 0), at: 300)
        #expect(skipped.isEmpty)
        #expect(try await store.incomingCursor(from: bob).stream == 6)
        #expect(try await store.counts().unread == 2)
        let page = try await store.history(with: bob, limit: 10).messages
        #expect(page.map(\.text) == ["hi", "there"])
        #expect(page[0].receivedAt == 200 && page[0].createdAt == 100)
    }

    @Test func aFullDiskFailsTheWholeTransactionWithAClearError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        _ = try await store.enqueue(to: bob, texts: ["before"], at: 1)
        let pages = try await store.pageCount()
        try await store.executeForTesting("PRAGMA max_page_count = \(pages)")
        let big = String(repeating: "x", count: 60_000)
        do {
            _ = try await store.enqueue(to: bob, texts: ["a", big, big], at: 2)
            Issue.record("a full store accepted the messages")
        } catch {
            #expect(error.kind == .unavailable)
            #expect(error.description.contains("disk is full"))
        }
        #expect(try await store.history(with: bob, limit: 10).messages.map(\.text) == ["before"])
        #expect(try await store.outgoingState(for: bob)?.nextSeq == 2)
        // Room again: the same batch, through the same cached statements the failure left
        // behind, is stored whole.
        try await store.executeForTesting("PRAGMA max_page_count = 1000000")
        let stored = try await store.enqueue(to: bob, texts: ["a", big, big], at: 3)
        #expect(stored.map(\.seq) == [2, 3, 4])
        #expect(
            try await store.history(with: bob, limit: 10).messages.map(\.text.count)
                == [6, 1, 60_000, 60_000])
    }

    /// `storeReceived`'s `onCommit` runs for the commit of its own batch only. A full disk makes SQLite roll
    /// the whole transaction back by itself; the closure must not then run at the next
    /// commit (the daemon sends the ACK from it: that would acknowledge what was not stored).
    @Test func onCommitNeverRunsForABatchTheDiskRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let commits = Mutex(0)
        try await store.storeReceived(
            from: bob, records: incomingRecords(stream: 5, seqs: 1...1),
            cursor: IncomingCursor(stream: 5, delivered: 1, read: 0), at: 1,
            onCommit: { commits.withLock { $0 += 1 } })
        #expect(commits.withLock { $0 } == 1)
        try await store.executeForTesting("PRAGMA max_page_count = \(try await store.pageCount())")
        let big = (2...40).map { _ in String(repeating: "x", count: 60_000) }
        do {
            try await store.storeReceived(
                from: bob, records: incomingRecords(stream: 5, seqs: 2...40, texts: big),
                cursor: IncomingCursor(stream: 5, delivered: 40, read: 0), at: 2,
                onCommit: { commits.withLock { $0 += 100 } })
            Issue.record("a full store accepted the batch")
        } catch {
            #expect(error.kind == .unavailable)
        }
        try await store.executeForTesting("PRAGMA max_page_count = 1000000")
        _ = try await store.enqueue(to: bob, texts: ["later"], at: 3)
        try await store.storeReceived(
            from: bob, records: incomingRecords(stream: 5, seqs: 2...2),
            cursor: IncomingCursor(stream: 5, delivered: 2, read: 0), at: 4,
            onCommit: { commits.withLock { $0 += 1 } })
        #expect(commits.withLock { $0 } == 2)
    }

    @Test func aReadOnlyStoreFailsWithAClearError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        try await store.executeForTesting("PRAGMA query_only = 1")
        do {
            _ = try await store.enqueue(to: bob, texts: ["a"], at: 2)
            Issue.record("a read-only store accepted the message")
        } catch {
            #expect(error.kind == .unavailable)
            #expect(error.description.contains("read-only"))
        }
    }

    @Test func historyPagesBackwardsAndForwards() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        let sent = try await store.enqueue(to: bob, texts: (1...7).map(String.init), at: 1)
        let latest = try await store.history(with: bob, limit: 3)
        #expect(latest.messages.map(\.text) == ["5", "6", "7"])
        #expect(latest.hasOlder)
        #expect(!latest.hasNewer)
        let older = try await store.history(with: bob, limit: 3, anchor: .before(sent[4].id))
        #expect(older.messages.map(\.text) == ["2", "3", "4"])
        #expect(older.hasNewer)
        let oldest = try await store.history(with: bob, limit: 3, anchor: .before(sent[1].id))
        #expect(oldest.messages.map(\.text) == ["1"])
        #expect(!oldest.hasOlder)
        let newer = try await store.history(with: bob, limit: 2, anchor: .after(sent[2].id))
        #expect(newer.messages.map(\.text) == ["4", "5"])
        #expect(newer.hasNewer)
        let newest = try await store.history(with: bob, limit: 2, anchor: .after(sent[4].id))
        #expect(newest.messages.map(\.text) == ["6", "7"])
        #expect(!newest.hasNewer)
        await #expect(throws: StoreError.self) {
            try await store.history(with: testKey(3), limit: 3, anchor: .before(sent[0].id))
        }
    }

    @Test func peersArePinnedOnceAndKeepTheirTrust() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.storePath)
        let endpoint = Endpoint(host: "127.0.0.1", port: 4000)
        #expect(
            try await store.recordPeerSeen(
                bob, keyTag: "AAAA-BBBB", name: "bob", status: "away", statusText: "out",
                endpoint: endpoint, at: 5))
        try await store.setTrust(bob, .verified)
        #expect(
            !(try await store.recordPeerSeen(
                bob, keyTag: "AAAA-BBBB", name: "bobby", status: nil, statusText: nil,
                endpoint: nil, at: 6)))
        let peers = try await store.peers()
        #expect(peers.count == 1)
        #expect(peers[0].name == "bobby" && peers[0].trust == .verified)
        #expect(peers[0].status == "away" && peers[0].statusText == "out")
        #expect(peers[0].addresses == [endpoint] && peers[0].firstSeen == 5)
        #expect(peers[0].lastSeen == 6)
    }

    @Test func addressesAreBoundedPerPeer() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        for port in 1...20 {
            try await store.recordAddress(
                bob, endpoint: Endpoint(host: "10.0.0.1", port: UInt16(port)), at: Int64(port))
        }
        let addresses = try await store.peers()[0].addresses
        #expect(addresses.count == 8)
        #expect(addresses.first?.port == 20)
    }
}

extension MessageStore {
    func pageCount() async throws -> Int {
        try await read("page count") { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
    }
}

extension StoredMessage {
    /// This message as a peer would send it again, at another place in its stream.
    fileprivate func wire(stream: UInt64, seq: UInt64) -> WireMessage {
        WireMessage(stream: stream, seq: seq, id: id, sentAt: createdAt, text: text)
    }
}
