import Foundation
import LanChatCore
import LanChatStore
import Logging
import Synchronization
import Testing

@testable import LanChatDaemon

/// One `PeerLink` driven through `FakeSession`s, with a real store in a temporary directory
/// and its loops running as they do under the registry: sessions up and replaced, HELLO,
/// MSG/ACK, resume, close and stop, without sockets.
@Suite struct PeerLinkTests {
    struct Harness {
        let root: TestRoot
        let store: MessageStore
        let events: EventBus
        let link: PeerLink
        let peer: PeerKey
        let directory: PeerDirectory
        let run: Task<Void, Never>

        static func start(
            readReceipts: Bool = true, clock: DaemonClock = .system, logger: Logger = quietLogger
        ) async throws -> Harness {
            let root = try TestRoot()
            let store = try MessageStore.open(path: root.path + "/lanchat.sqlite3")
            let own = try #require(LinkPhaseTests.own)
            let peer = try #require(LinkPhaseTests.peer)
            let directory = PeerDirectory(ownKey: own, records: [], persistence: store)
            _ = try await directory.pinOnFirstContact(peer, dialledAddress: nil, at: 1_000)
            let events = EventBus()
            let services = LinkServices(
                store: store, directory: directory, events: events,
                profile: OwnProfile(name: "alice"), logger: logger,
                readReceipts: readReceipts,
                clock: clock)
            let link = PeerLink(key: peer, services: services)
            let run = Task { await link.run() }
            return Harness(
                root: root, store: store, events: events, link: link, peer: peer,
                directory: directory, run: run)
        }

        func stop() async {
            link.requestStop()
            await run.value
            try? store.close()
            root.remove()
        }

        func session(
            _ tag: String, dialledByPeer: Bool = true,
            capabilities: UInt64 = Capabilities.supported,
            beforeControl: (@Sendable ([AppMessage]) -> Void)? = nil
        ) -> FakeSession {
            FakeSession(
                peer: peer, tag: tag, dialledByPeer: dialledByPeer, capabilities: capabilities,
                beforeControl: beforeControl)
        }

        /// A session that is up and has exchanged HELLOs: our HELLO read, theirs applied.
        func established(
            _ tag: String, theirHello: Hello = Harness.hello(),
            capabilities: UInt64 = Capabilities.supported,
            beforeControl: (@Sendable ([AppMessage]) -> Void)? = nil
        ) async throws
            -> (FakeSession, AsyncStream<FakeSession.Write>.Iterator)
        {
            let session = self.session(
                tag, capabilities: capabilities, beforeControl: beforeControl)
            var writes = session.writes.makeAsyncIterator()
            #expect(await link.attach(session))
            guard case .control(let first) = await writes.next(), case .hello = first.first else {
                Issue.record("HELLO must be the first thing written")
                throw CancellationError()
            }
            await link.received([.hello(theirHello)], on: session)
            return (session, writes)
        }

        static func hello(inStream: UInt64 = 0, inDelivered: UInt64 = 0, inRead: UInt64 = 0)
            -> Hello
        {
            Hello(
                name: "bob", presence: .available, statusText: "", outStream: 0, outNext: 1,
                inStream: inStream, inDelivered: inDelivered, inRead: inRead)
        }

        func incoming() async throws -> [StoredMessage] {
            try await store.history(with: peer, limit: 100).messages.filter {
                $0.direction == .incoming
            }
        }
    }

    static func wire(_ seq: UInt64, stream: UInt64 = 77, text: String = "hi") -> AppMessage {
        .message(
            WireMessage(
                stream: stream, seq: seq, id: MessageID.random(), sentAt: 1_000, text: text))
    }

    @Test func aMessageBeforeTheHelloClosesTheSessionAndStoresNothing() async throws {
        let harness = try await Harness.start()
        let session = harness.session("a")
        #expect(await harness.link.attach(session))
        await harness.link.received([Self.wire(1)], on: session)
        #expect(session.closeReason == .protocolError)
        #expect(try await harness.incoming().isEmpty)
        #expect(await !harness.link.isOnline)
        await harness.stop()
    }

    @Test func aMessageAfterTheHelloIsStoredThenAcknowledged() async throws {
        let harness = try await Harness.start()
        var (session, writes) = try await harness.established("a")
        await harness.link.received([Self.wire(1), Self.wire(2)], on: session)
        #expect(await writes.next() == .control([.ack(stream: 77, delivered: 2)]))
        #expect(try await harness.incoming().map(\.seq) == [1, 2])
        // A resent one is a duplicate: acknowledged again, not stored twice.
        await harness.link.received([Self.wire(2)], on: session)
        #expect(await writes.next() == .control([.ack(stream: 77, delivered: 2)]))
        #expect(try await harness.incoming().count == 2)
        await harness.stop()
    }

    /// The ACK leaves from the store's commit hook: only a commit sends it. A batch the
    /// store refuses is neither stored nor acknowledged; the session closes, so the peer
    /// sends it again on the next one.
    /// A chunk the store cannot commit is not acknowledged, and not dropped with the
    /// session either: the link holds it and tries again (1 s, 2 s, … by its clock) until it
    /// is stored, then acknowledges it on the same session (seen on a full tmpfs: the session
    /// ended, came back and failed again, over and over). A stop ends the wait at once.
    @Test(.timeLimit(.minutes(1)))
    func aBatchTheStoreCannotCommitIsHeldUntilItCanBeStored() async throws {
        let clock = ManualClock()
        let harness = try await Harness.start(clock: clock.daemonClock)
        var (session, writes) = try await harness.established("a")
        await harness.link.received([Self.wire(1)], on: session)
        #expect(await writes.next() == .control([.ack(stream: 77, delivered: 1)]))
        try await harness.store.executeForTesting("PRAGMA query_only = 1")
        let held = Task { await harness.link.received([Self.wire(2), Self.wire(3)], on: session) }
        try await eventually("waiting to try again") { clock.sleeperCount == 1 }
        #expect(session.closeReason == nil)
        #expect(try await harness.incoming().map(\.seq) == [1])
        try await harness.store.executeForTesting("PRAGMA query_only = 0")
        clock.advance(by: .seconds(1))
        #expect(await writes.next() == .control([.ack(stream: 77, delivered: 3)]))
        await held.value
        #expect(try await harness.incoming().map(\.seq) == [1, 2, 3])
        #expect(session.closeReason == nil)

        try await harness.store.executeForTesting("PRAGMA query_only = 1")
        let stopped = Task { await harness.link.received([Self.wire(4)], on: session) }
        try await eventually("held again") { clock.sleeperCount == 1 }
        await harness.stop()
        await stopped.value
        #expect(await writes.next() == .closed(.normal))
    }

    @Test func aSecondHelloIsAProtocolError() async throws {
        let harness = try await Harness.start()
        let (session, _) = try await harness.established("a")
        await harness.link.received([.hello(Harness.hello())], on: session)
        #expect(session.closeReason == .protocolError)
        await harness.stop()
    }

    @Test func whatAReplacedSessionStillDeliversIsIgnored() async throws {
        let harness = try await Harness.start()
        let (old, _) = try await harness.established("old")
        let (new, _) = try await harness.established("new")
        #expect(old.closeReason == .replaced)
        #expect(new.closeReason == nil)
        // A batch the old connection read before it closed arrives late.
        await harness.link.received([Self.wire(1)], on: old)
        #expect(try await harness.incoming().isEmpty)
        // Its end does not take the new session down.
        await harness.link.detach(old)
        #expect(await harness.link.isOnline)
        await harness.stop()
    }

    @Test func theStreamResumesWhereThePeersHelloSaysAndAcksAreRecorded() async throws {
        let harness = try await Harness.start()
        let stored = try await harness.store.enqueue(
            to: harness.peer, texts: ["one", "two", "three"], at: 2_000)
        await harness.link.committed(stored)
        let stream = try #require(stored.first?.stream)
        let statuses = harness.events.subscribe()
        // The peer already has seq 1 (its HELLO says so): 2 and 3 go out.
        var (session, writes) = try await harness.established(
            "a", theirHello: Harness.hello(inStream: stream, inDelivered: 1))
        guard case .messages(let sent) = await writes.next() else {
            Issue.record("the pump must write the rest of the stream")
            return
        }
        let seqs = sent.compactMap { message -> UInt64? in
            if case .message(let wire) = message { return wire.seq }
            return nil
        }
        #expect(seqs == [2, 3])
        await harness.link.received([.ack(stream: stream, delivered: 3)], on: session)
        // The writer records the ACK; its status change is the proof it is in the store.
        await Self.awaitDelivered(seq: 3, on: statuses)
        let rows = try await harness.store.messages(ids: stored.map(\.id))
        #expect(rows.allSatisfy { $0.status == .delivered })
        await harness.stop()
    }

    /// A message stored just before a new stream began is moved onto it; its sender's
    /// late `committed` names the old stream (found by review: it turned the flow back to
    /// the old stream, and the pump wrote that stream again from seq 1).
    @Test(.timeLimit(.minutes(1)))
    func aLateCommitOfTheOldStreamLeavesTheNewOneCurrent() async throws {
        let harness = try await Harness.start()
        let first = try await harness.store.enqueue(to: harness.peer, texts: ["one"], at: 2_000)
        await harness.link.committed(first)
        let old = try #require(first.first?.stream)
        var (session, writes) = try await harness.established(
            "a", theirHello: Harness.hello(inStream: old))
        guard case .messages = await writes.next() else {
            Issue.record("the pump must write 'one'")
            return
        }
        await harness.link.received([.ack(stream: old, delivered: 1)], on: session)
        // Stored, its commit not yet told to the link...
        let late = try await harness.store.enqueue(to: harness.peer, texts: ["two"], at: 2_001)
        // ...when the peer's next HELLO has seen more of the stream than we hold: new stream.
        (session, writes) = try await harness.established(
            "b", theirHello: Harness.hello(inStream: old, inDelivered: 5))
        guard case .messages(let moved) = await writes.next() else {
            Issue.record("the pump must write 'two' on the new stream")
            return
        }
        let fresh = try #require(Self.wires(moved).first?.stream)
        #expect(fresh != old)
        await harness.link.committed(late)
        let third = try await harness.store.enqueue(to: harness.peer, texts: ["three"], at: 2_002)
        await harness.link.committed(third)
        guard case .messages(let next) = await writes.next() else {
            Issue.record("the pump must write 'three'")
            return
        }
        #expect(Self.wires(next).map(\.stream) == [fresh], "\(next)")
        // Right after what the new stream began with (`one` too, if its delivery mark was
        // not written yet: the peer drops it by id).
        #expect(Self.wires(next).map(\.seq) == [UInt64(Self.wires(moved).count + 1)])
        await harness.stop()
    }

    static func wires(_ messages: [AppMessage]) -> [WireMessage] {
        messages.compactMap { if case .message(let wire) = $0 { wire } else { nil } }
    }

    /// A message re-queued (`retry`) leaves a hole in our stream; a peer whose store was
    /// restored resumes before it (found by review: the pump stopped at the hole, and nothing
    /// queued to the peer went out again). The queued messages go on a new stream.
    @Test(.timeLimit(.minutes(1)))
    func aHoleWhereThePeerResumesStartsANewStream() async throws {
        let harness = try await Harness.start()
        let stored = try await harness.store.enqueue(
            to: harness.peer, texts: ["one", "two", "three"], at: 2_000)
        let stream = try #require(stored.first?.stream)
        _ = try await harness.store.markFailed(
            peer: harness.peer, stream: stream, seq: 2, reason: "refused")
        let requeued = try await harness.store.requeueFailed(peer: harness.peer)
        #expect(requeued.map(\.seq) == [4])
        // The peer's store, restored, has only seq 1 of the stream.
        var (_, writes) = try await harness.established(
            "a", theirHello: Harness.hello(inStream: stream, inDelivered: 1))
        guard case .messages(let sent) = await writes.next() else {
            Issue.record("the pump must write the queued messages")
            return
        }
        let wires = sent.compactMap { message -> WireMessage? in
            if case .message(let wire) = message { return wire }
            return nil
        }
        #expect(Set(wires.map(\.stream)).count == 1)
        #expect(wires.first?.stream != stream)
        #expect(wires.map(\.seq) == Array(1...UInt64(wires.count)))
        let texts = wires.compactMap { wire -> String? in
            if case .valid(let text) = wire.text { text } else { nil }
        }
        #expect(Set(texts) == ["two", "three"])
        await harness.stop()
    }

    /// An ACK whose mark the store refuses (a full disk) is written once there is room
    /// again, with no later ACK to cover it: the session stays up, and the messages stayed
    /// queued for good (found by QA).
    @Test(.timeLimit(.minutes(1)))
    func aDeliveryMarkRefusedByAFullStoreIsWrittenOnceThereIsRoom() async throws {
        let harness = try await Harness.start()
        let stored = try await harness.store.enqueue(
            to: harness.peer, texts: (1...300).map { "message \($0)" }, at: 2_000)
        await harness.link.committed(stored)
        let stream = try #require(stored.first?.stream)
        let statuses = harness.events.subscribe()
        var (session, writes) = try await harness.established("a")
        var sent = 0
        while sent < 300, case .messages(let batch) = await writes.next() { sent += batch.count }
        // Full (SQLite raises a limit below the file's size to its size): the marks'
        // events cannot be written.
        try await harness.store.executeForTesting("PRAGMA max_page_count = 1")
        await harness.link.received([.ack(stream: stream, delivered: 300)], on: session)
        try await eventually("the mark refused") { await harness.link.deliveryMarksRefused }
        let refused = try await harness.store.messages(ids: stored.map(\.id))
        #expect(refused.allSatisfy { $0.status == .queued })
        try await harness.store.executeForTesting("PRAGMA max_page_count = 1000000")
        await Self.awaitDelivered(seq: 300, on: statuses)
        let rows = try await harness.store.messages(ids: stored.map(\.id))
        #expect(rows.allSatisfy { $0.status == .delivered })
        _ = session
        await harness.stop()
    }

    /// Returns once `statuses` tells that our message `seq` was written as delivered.
    static func awaitDelivered(seq: UInt64, on statuses: AsyncStream<DaemonEvent>) async {
        for await event in statuses {
            if case .statusChanged(_, let changed, sent: false) = event,
                changed.contains(where: { $0.seq == seq && $0.status == .delivered })
            {
                return
            }
        }
    }

    /// PROTOCOL.md §9.3 with a cursor beyond anything we assigned (our store went back in
    /// time, or the peer lies): none of our messages is marked delivered or read by it; the
    /// undelivered ones go out again, in order, on a fresh stream (found by QA: queued
    /// messages were shown read and never sent).
    @Test(.timeLimit(.minutes(1)))  // before the fix nothing was written: the wait hung
    func aHelloAheadOfOurStreamResendsEveryUndeliveredMessageOnAFreshStream()
        async throws
    {
        let harness = try await Harness.start()
        let stored = try await harness.store.enqueue(
            to: harness.peer, texts: ["one", "two", "three"], at: 2_000)
        await harness.link.committed(stored)
        let stream = try #require(stored.first?.stream)
        var (_, writes) = try await harness.established(
            "a", theirHello: Harness.hello(inStream: stream, inDelivered: 1_000, inRead: 1_000))
        guard case .messages(let sent) = await writes.next() else {
            Issue.record("the undelivered messages must go out")
            return
        }
        let wires = sent.compactMap { message -> WireMessage? in
            if case .message(let wire) = message { return wire }
            return nil
        }
        #expect(wires.map(\.id) == stored.map(\.id))
        #expect(wires.map(\.seq) == [1, 2, 3])
        #expect(wires.allSatisfy { $0.stream != stream })
        let rows = try await harness.store.messages(ids: stored.map(\.id))
        #expect(rows.allSatisfy { $0.status == .queued && $0.readAt == nil })
        await harness.stop()
    }

    /// After a restart of our stream the peer still holds the earlier one's messages, and
    /// its user may read them before our next message makes it adopt the new stream: that
    /// READ marks them read. One of a stream that holds nothing of ours (all its messages
    /// moved, or never ours) marks nothing and does not close the session (§9.5 names only
    /// ACK).
    @Test(.timeLimit(.minutes(1)))
    func aReadOfAnotherStreamMarksWhatWeHoldOfItAndClosesNothing() async throws {
        let harness = try await Harness.start()
        let stored = try await harness.store.enqueue(
            to: harness.peer, texts: ["one", "two"], at: 2_000)
        await harness.link.committed(stored)
        let stream = try #require(stored.first?.stream)
        _ = try await harness.store.markDelivered(
            peer: harness.peer, stream: stream, upTo: 1, at: 2_100)
        var (session, writes) = try await harness.established(
            "a", theirHello: Harness.hello(inStream: stream, inDelivered: 1_000))
        _ = await writes.next()  // "two", again, on the fresh stream
        await harness.link.received([.read(stream: stream, read: 1)], on: session)
        #expect(session.closeReason == nil)
        let first = try await harness.store.messages(ids: [stored[0].id])
        #expect(first.map(\.status) == [.read])
        await harness.link.received([.read(stream: 424_242, read: 1)], on: session)
        #expect(session.closeReason == nil)
        // Still applied on the current stream: "two" went out there as seq 1.
        let current = try #require(try await harness.store.outgoingState(for: harness.peer))
        await harness.link.received([.read(stream: current.stream, read: 2)], on: session)
        #expect(session.closeReason == .protocolError)  // beyond what was assigned
        await harness.stop()
    }

    @Test func anAckBeyondWhatWasSentIsAProtocolError() async throws {
        let harness = try await Harness.start()
        let stored = try await harness.store.enqueue(to: harness.peer, texts: ["one"], at: 2_000)
        await harness.link.committed(stored)
        let stream = try #require(stored.first?.stream)
        var (session, writes) = try await harness.established("a")
        _ = await writes.next()  // the MSG
        await harness.link.received([.ack(stream: stream, delivered: 5)], on: session)
        #expect(session.closeReason == .protocolError)
        await harness.stop()
    }

    @Test func stoppingEndsTheLoopsAndTurnsLaterBatchesAway() async throws {
        let harness = try await Harness.start()
        let (session, _) = try await harness.established("a")
        harness.link.requestStop()
        await harness.run.value
        // Returns at once rather than waiting for a loop that no longer runs.
        await harness.link.received([Self.wire(1)], on: session)
        #expect(try await harness.incoming().isEmpty)
        try? harness.store.close()
        harness.root.remove()
    }

    @Test func readingSendsACumulativeReadOnTheEstablishedSession() async throws {
        let harness = try await Harness.start()
        var (session, writes) = try await harness.established("a")
        await harness.link.received([Self.wire(1), Self.wire(2), Self.wire(3)], on: session)
        _ = await writes.next()  // the ACK
        await harness.link.readLocally(stream: 77, upTo: 2)
        #expect(await writes.next() == .control([.read(stream: 77, read: 2)]))
        // Never backwards, never twice, never past what was delivered.
        await harness.link.readLocally(stream: 77, upTo: 1)
        await harness.link.readLocally(stream: 77, upTo: 9)
        #expect(await writes.next() == .control([.read(stream: 77, read: 3)]))
        await harness.stop()
    }

    /// The ACK leaves at the store's commit, before the link takes the chunk's cursor in;
    /// a read in between (a chat marks a message read as soon as it shows it) is told once
    /// the chunk is in (found as a chat test's "✓✓ read" that never came on a loaded
    /// machine: the READ was cut at the old cursor, and the rest never sent).
    @Test(.timeLimit(.minutes(1)))
    func aReadBetweenTheCommitAndTheLedgerIsToldOnceTheChunkIsIn() async throws {
        let harness = try await Harness.start()
        let (acked, ackSeen) = AsyncStream.makeStream(of: Void.self)
        let release = DispatchSemaphore(value: 0)
        let holding = Mutex(Set<UInt64>([1, 2]))
        let (session, firstWrites) = try await harness.established("a") { messages in
            // Each gated ACK once, held on the store's writer inside its commit hook.
            guard case .ack(_, let delivered) = messages.last,
                holding.withLock({ $0.remove(delivered) != nil })
            else { return }
            ackSeen.yield()
            release.wait()
        }
        var writes = firstWrites
        var signals = acked.makeAsyncIterator()
        // The first message of the stream, and then one more, each read while held.
        for seq: UInt64 in [1, 2] {
            let receiving = Task { await harness.link.received([Self.wire(seq)], on: session) }
            _ = await signals.next()
            // Committed and acknowledged; the link has not taken the chunk in yet.
            await harness.link.readLocally(stream: 77, upTo: seq)
            release.signal()
            await receiving.value
            #expect(await writes.next() == .control([.ack(stream: 77, delivered: seq)]))
            #expect(await writes.next() == .control([.read(stream: 77, read: seq)]))
        }
        // Nothing else was told: the next write is the next ACK.
        await harness.link.received([Self.wire(3)], on: session)
        #expect(await writes.next() == .control([.ack(stream: 77, delivered: 3)]))
        await harness.stop()
    }

    @Test func withReadReceiptsOffNothingIsSentAndHelloSaysNothingWasRead() async throws {
        let harness = try await Harness.start(readReceipts: false)
        var (session, writes) = try await harness.established("a")
        await harness.link.received([Self.wire(1)], on: session)
        _ = await writes.next()  // the ACK
        await harness.link.readLocally(stream: 77, upTo: 1)
        // The next thing written is the next ACK, not a READ.
        await harness.link.received([Self.wire(2)], on: session)
        #expect(await writes.next() == .control([.ack(stream: 77, delivered: 2)]))
        // A new session's HELLO carries in_read = 0.
        let next = harness.session("b")
        var nextWrites = next.writes.makeAsyncIterator()
        #expect(await harness.link.attach(next))
        guard case .control(let first) = await nextWrites.next(),
            case .hello(let hello) = first.first
        else {
            Issue.record("HELLO must be the first thing written")
            return
        }
        #expect(hello.inDelivered == 2 && hello.inRead == 0)
        await harness.stop()
    }

    /// A peer that dialled in is pinned before it says its name: its first HELLO logs
    /// `peer.new`, then `peer.presence` (online), both with the name (found by QA: `new peer
    /// O6GA-QC7O`, and nothing after it named the peer; then a live `peer.new` with an empty
    /// name).
    @Test func theFirstHelloOfAPeerThatDialledInIsAPresenceEventWithItsName() async throws {
        let harness = try await Harness.start()
        let before = try await harness.store.events(after: 0, limit: 100).count
        _ = try await harness.established("a")
        let logged = try await harness.store.events(after: 0, limit: 100).dropFirst(before)
        #expect(logged.map(\.type) == [.peerNew, .peerPresence], "\(logged)")
        // The same HELLO again (the next session) changes nothing: no event.
        _ = try await harness.established("b")
        #expect(try await harness.store.events(after: 0, limit: 100).count == before + 2)
        await harness.stop()
    }

    /// A PRESENCE flood (found by QA: 50 000 in half a second, each a store write and a
    /// durable event): a few are applied, the rest wait, and the last one sent stands.
    @Test(.timeLimit(.minutes(1)))
    func aPresenceFloodIsPacedAndItsLastWordStands() async throws {
        let clock = ManualClock()
        let harness = try await Harness.start(clock: clock.daemonClock)
        let (session, _) = try await harness.established("a")
        let before = try await harness.store.events(after: 0, limit: 1000).count
        for n in 0..<100 {
            await harness.link.received(
                [.presence(n.isMultiple(of: 2) ? .away : .busy, statusText: "flood \(n)")],
                on: session)
        }
        func statusText() -> String? {
            harness.directory.entry(harness.peer)?.record.statusText
        }
        let logged = try await harness.store.events(after: 0, limit: 1000).count - before
        #expect(logged == PresencePacer.burst)
        #expect(statusText() == "flood \(PresencePacer.burst - 1)")
        // Its turn comes with the clock, which only this test moves.
        var turns = 0
        while statusText() != "flood 99", turns < 10_000 {
            clock.advance(by: PresencePacer.interval)
            turns += 1
            await Task.yield()
        }
        #expect(statusText() == "flood 99")
        // Its event is written just after the directory shows it.
        var count = 0
        for _ in 0..<5_000 {
            count = try await harness.store.events(after: 0, limit: 1000).count - before
            if count > logged { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(count == logged + 1)
        await harness.stop()
    }

    /// A presence change between our HELLO and the peer's is sent at once: our HELLO already
    /// carried the old presence, and waiting for the peer's HELLO used to lose the change.
    @Test(.timeLimit(.minutes(1)))
    func presenceChangedBeforeThePeersHelloIsSentAfterOurs() async throws {
        let harness = try await Harness.start()
        let session = harness.session("a")
        var writes = session.writes.makeAsyncIterator()
        #expect(await harness.link.attach(session))
        guard case .control(let first) = await writes.next(), case .hello = first.first else {
            Issue.record("HELLO must be the first thing written")
            return
        }
        await harness.link.announce(.presence(.away, statusText: "lunch"))
        #expect(await writes.next() == .control([.presence(.away, statusText: "lunch")]))
        await harness.stop()
    }
}
