import Testing

@testable import LanChatCore

/// Drives the §9 state machines through every branch without sockets: in-order, duplicate,
/// gap, new stream adoption, unknown-stream ACK, REJECT, and a session drop with messages
/// in flight.
@Suite("Streams, sequence numbers and acknowledgements (PROTOCOL.md §9)")
struct LedgerTests {
    func message(stream: UInt64, seq: UInt64, text: String = "hi") -> WireMessage {
        WireMessage(stream: stream, seq: seq, id: .random(), sentAt: 0, text: text)
    }

    // MARK: Incoming

    @Test func inOrderMessagesAreStoredAndAdvanceTheCursor() {
        var ledger = IncomingLedger(cursor: IncomingCursor(stream: 7, delivered: 2, read: 1))
        #expect(ledger.classify(message(stream: 7, seq: 3)) == .store)
        #expect(ledger.classify(message(stream: 7, seq: 4)) == .store)
        #expect(ledger.cursor == IncomingCursor(stream: 7, delivered: 4, read: 1))
    }

    @Test func duplicatesAreDroppedWithoutMovingTheCursor() {
        var ledger = IncomingLedger(cursor: IncomingCursor(stream: 7, delivered: 5, read: 0))
        #expect(ledger.classify(message(stream: 7, seq: 5)) == .duplicate)
        #expect(ledger.classify(message(stream: 7, seq: 1)) == .duplicate)
        #expect(ledger.cursor.delivered == 5)
    }

    @Test func aGapIsAProtocolErrorAndStoresNothing() {
        var ledger = IncomingLedger(cursor: IncomingCursor(stream: 7, delivered: 5, read: 0))
        guard case .protocolError = ledger.classify(message(stream: 7, seq: 7)) else {
            Issue.record("gap accepted")
            return
        }
        #expect(ledger.cursor.delivered == 5)
    }

    @Test func aNewStreamIsAdoptedAtItsFirstMessage() {
        var ledger = IncomingLedger(cursor: IncomingCursor(stream: 7, delivered: 50, read: 40))
        #expect(ledger.classify(message(stream: 8, seq: 12)) == .store)
        // Nothing of it read here (found by QA: a restored store claimed 1 … 11 read).
        #expect(ledger.cursor == IncomingCursor(stream: 8, delivered: 12, read: 0))
        #expect(ledger.classify(message(stream: 8, seq: 13)) == .store)
    }

    @Test func streamOrSeqZeroIsAProtocolError() {
        var ledger = IncomingLedger(cursor: IncomingCursor())
        guard case .protocolError = ledger.classify(message(stream: 0, seq: 1)),
            case .protocolError = ledger.classify(message(stream: 1, seq: 0))
        else {
            Issue.record("zero accepted")
            return
        }
        #expect(ledger.cursor == IncomingCursor())
    }

    @Test func unacceptableTextIsRejectedAndCountsAsProcessed() {
        var ledger = IncomingLedger(cursor: IncomingCursor(stream: 7, delivered: 0, read: 0))
        let bad = WireMessage(
            stream: 7, seq: 1, id: .random(), sentAt: 0, group: nil,
            text: .unacceptable(.tooLarge))
        #expect(ledger.classify(bad) == .reject(.tooLarge))
        #expect(ledger.cursor.delivered == 1)
        #expect(ledger.classify(message(stream: 7, seq: 2)) == .store)
    }

    /// Which group MSGs are taken is the policy's call (the daemon's group membership check),
    /// not the ledger's: it orders them like any other.
    @Test func groupMessagesAreLeftToThePolicyAndRefusalsAreRejected() {
        var ledger = IncomingLedger(cursor: IncomingCursor(stream: 7, delivered: 0, read: 0))
        var group = message(stream: 7, seq: 1)
        group.group = [UInt8](repeating: 1, count: 16)
        #expect(ledger.classify(group) == .store)
        #expect(
            ledger.classify(message(stream: 7, seq: 2), policy: { _ in .refusedByPolicy })
                == .reject(.refusedByPolicy))
        #expect(ledger.cursor.delivered == 2)
    }

    @Test func readNeverMovesBackwardsNorPastDelivered() {
        var ledger = IncomingLedger(cursor: IncomingCursor(stream: 7, delivered: 5, read: 2))
        #expect(ledger.markRead(stream: 7, upTo: 1) == nil)
        #expect(ledger.markRead(stream: 7, upTo: 9) == 5)
        #expect(ledger.cursor.read == 5)
        #expect(ledger.markRead(stream: 7, upTo: 5) == nil)
    }

    /// A read past `delivered` waits for the messages it covers, and a read of a stream not
    /// followed yet for that stream (the daemon's store commits, and a user can read, before
    /// the link takes a chunk into its ledger).
    @Test func aReadAheadOfTheLedgerWaitsForItsMessages() {
        var ledger = IncomingLedger(cursor: IncomingCursor(stream: 7, delivered: 5, read: 5))
        #expect(ledger.markRead(stream: 7, upTo: 7) == nil)
        #expect(ledger.classify(message(stream: 7, seq: 6)) == .store)
        #expect(ledger.applyReadRequest() == 6)
        #expect(ledger.classify(message(stream: 7, seq: 7)) == .store)
        #expect(ledger.classify(message(stream: 7, seq: 8)) == .store)
        #expect(ledger.applyReadRequest() == 7)
        #expect(ledger.cursor.read == 7)
        // A new stream's first message, read before it is taken in.
        #expect(ledger.markRead(stream: 9, upTo: 1) == nil)
        #expect(ledger.cursor.read == 7)
        #expect(ledger.classify(message(stream: 9, seq: 1)) == .store)
        #expect(ledger.applyReadRequest() == 1)
        // A request of another stream is forgotten when a third one starts.
        #expect(ledger.markRead(stream: 11, upTo: 4) == nil)
        #expect(ledger.classify(message(stream: 12, seq: 1)) == .store)
        #expect(ledger.readRequest == nil && ledger.applyReadRequest() == nil)
    }

    // MARK: Outgoing

    @Test func helloOnTheSameStreamMarksDeliveredAndReadAndResumesAfterIt() {
        var flow = OutgoingFlow(stream: 42, highestAssigned: 10)
        let resume = flow.helloReceived(
            inStream: 42, inDelivered: 6, inRead: 3, stored: .init(stream: 42, firstUndelivered: 4))
        #expect(resume == .init(deliveredUpTo: 6, readUpTo: 3, peerAheadOfStream: false))
        #expect(flow.sendable == 7...10)
        #expect(flow.inFlight == nil)
    }

    @Test func helloFromAPeerThatLostItsStoreResendsEverythingUndelivered() {
        var flow = OutgoingFlow(stream: 42, highestAssigned: 10)
        let resume = flow.helloReceived(
            inStream: 0, inDelivered: 0, inRead: 0, stored: .init(stream: 42, firstUndelivered: 8))
        #expect(resume == .init(deliveredUpTo: nil, readUpTo: nil, peerAheadOfStream: false))
        #expect(flow.sendable == 8...10)
    }

    @Test func helloAheadOfOurStreamAsksForAFreshStreamAndMarksNothing() {
        var flow = OutgoingFlow(stream: 42, highestAssigned: 3)
        // Seqs 2 and 3 were never sent: the peer's 9 is about another history.
        let resume = flow.helloReceived(
            inStream: 42, inDelivered: 9, inRead: 9, stored: .init(stream: 42, firstUndelivered: 2))
        #expect(resume == .init(deliveredUpTo: nil, readUpTo: nil, peerAheadOfStream: true))
        // The caller moves 2 and 3 to the fresh stream as its 1 and 2.
        flow.assigned(stream: 99, upTo: 2)
        #expect(flow.sendable == 1...2)
    }

    @Test func nothingIsSentBeforeThePeersHello() {
        var flow = OutgoingFlow(stream: 42, highestAssigned: 10)
        #expect(flow.sendable == nil)
        #expect(throws: OutgoingFlow.Violation.self) {
            try flow.ackReceived(stream: 42, delivered: 1)
        }
    }

    @Test func theWindowCapsMessagesInFlight() throws {
        var flow = OutgoingFlow(stream: 1, highestAssigned: 5_000)
        _ = flow.helloReceived(
            inStream: 1, inDelivered: 0, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        #expect(flow.sendable == 1...1_024)
        flow.didSend(upTo: 1_024)
        #expect(flow.sendable == nil)
        #expect(flow.inFlight == 1...1_024)
        #expect(try flow.ackReceived(stream: 1, delivered: 100) == 100)
        // Room for less than a batch while more waits: the window refills in whole batches.
        #expect(flow.sendable == nil)
        #expect(try flow.ackReceived(stream: 1, delivered: 256) == 256)
        #expect(flow.sendable == 1_025...1_280)
        flow.didSend(upTo: 1_280)
        #expect(try flow.ackReceived(stream: 1, delivered: 600) == 600)
        #expect(flow.sendable == 1_281...1_624)
    }

    /// A short batch after a read that split one of ours must not set the rhythm of the rest
    /// of a burst: the batches written stay whole, and so do the peer's commits.
    @Test func aSplitAckDoesNotSplitTheBatchesThatFollow() throws {
        var flow = OutgoingFlow(stream: 1, highestAssigned: 10_000)
        _ = flow.helloReceived(
            inStream: 1, inDelivered: 0, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        var writes: [Int] = []
        // The peer commits and acknowledges each write as it arrives, except the first,
        // which arrives in two reads (98 messages, then the rest).
        var acks: [UInt64] = []
        var commits = 0
        while true {
            while let range = flow.sendable {
                var start = range.lowerBound
                while start <= range.upperBound {  // the pump writes at most 256 at once
                    let end = min(range.upperBound, start + 255)
                    writes.append(Int(end - start + 1))
                    if start == 1 { acks.append(98) }
                    acks.append(end)
                    start = end + 1
                }
                flow.didSend(upTo: range.upperBound)
            }
            guard !acks.isEmpty else { break }
            commits += 1
            _ = try flow.ackReceived(stream: 1, delivered: acks.removeFirst())
        }
        #expect(flow.acknowledged == 10_000)
        #expect(writes.dropLast().allSatisfy { $0 == 256 }, "\(writes)")
        #expect(writes.last == 10_000 % 256)
        // One commit more than whole batches need (40), for the split read; not one per round.
        #expect(commits == 41)
    }

    @Test func theTailAndALoneMessageGoAtOnceWhateverTheRoom() throws {
        var flow = OutgoingFlow(stream: 1, highestAssigned: 1_100)
        _ = flow.helloReceived(
            inStream: 1, inDelivered: 0, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        flow.didSend(upTo: 1_024)
        // 76 are left, the ACK made room for 50 of them: not a whole batch, so it waits
        #expect(try flow.ackReceived(stream: 1, delivered: 50) == 50)
        #expect(flow.sendable == nil)
        // Room for all 76 that are left: they go, though fewer than a batch.
        #expect(try flow.ackReceived(stream: 1, delivered: 76) == 76)
        #expect(flow.sendable == 1_025...1_100)
        // Nothing in flight: any room is used at once (one message after an idle spell).
        var idle = OutgoingFlow(stream: 1, highestAssigned: 1)
        _ = idle.helloReceived(
            inStream: 1, inDelivered: 0, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        #expect(idle.sendable == 1...1)
    }

    @Test func cumulativeAckDeliversAndAReAckAddsNothing() throws {
        var flow = OutgoingFlow(stream: 1, highestAssigned: 3)
        _ = flow.helloReceived(
            inStream: 1, inDelivered: 0, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        flow.didSend(upTo: 3)
        #expect(try flow.ackReceived(stream: 1, delivered: 2) == 2)
        #expect(try flow.ackReceived(stream: 1, delivered: 2) == nil)
        #expect(try flow.ackReceived(stream: 1, delivered: 1) == nil)
        #expect(flow.inFlight == 3...3)
    }

    @Test func ackForAnUnknownStreamOrBeyondWhatWasSentIsAViolation() {
        var flow = OutgoingFlow(stream: 1, highestAssigned: 3)
        _ = flow.helloReceived(
            inStream: 1, inDelivered: 0, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        flow.didSend(upTo: 2)
        #expect(throws: OutgoingFlow.Violation.self) {
            try flow.ackReceived(stream: 2, delivered: 1)
        }
        #expect(throws: OutgoingFlow.Violation.self) {
            try flow.ackReceived(stream: 1, delivered: 3)
        }
        var noStream = OutgoingFlow(stream: nil, highestAssigned: 0)
        _ = noStream.helloReceived(inStream: 0, inDelivered: 0, inRead: 0, stored: nil)
        #expect(throws: OutgoingFlow.Violation.self) {
            try noStream.ackReceived(stream: 5, delivered: 1)
        }
    }

    @Test func rejectIsAcceptedForSentMessagesOnly() throws {
        var flow = OutgoingFlow(stream: 1, highestAssigned: 3)
        _ = flow.helloReceived(
            inStream: 1, inDelivered: 0, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        flow.didSend(upTo: 2)
        try flow.rejectReceived(stream: 1, seq: 2)
        #expect(throws: OutgoingFlow.Violation.self) { try flow.rejectReceived(stream: 1, seq: 3) }
        #expect(throws: OutgoingFlow.Violation.self) { try flow.rejectReceived(stream: 9, seq: 1) }
    }

    @Test func readReceiptsMoveForwardOnly() throws {
        var flow = OutgoingFlow(stream: 1, highestAssigned: 3)
        _ = flow.helloReceived(
            inStream: 1, inDelivered: 3, inRead: 1, stored: .init(stream: 1, firstUndelivered: 4))
        #expect(try flow.readReceived(stream: 1, read: 1) == nil)
        #expect(try flow.readReceived(stream: 1, read: 3) == 3)
        #expect(throws: OutgoingFlow.Violation.self) { try flow.readReceived(stream: 1, read: 4) }
    }

    @Test func aSessionDropTurnsInFlightMessagesBackIntoQueuedOnes() {
        // In flight on the first session...
        var first = OutgoingFlow(stream: 1, highestAssigned: 5)
        _ = first.helloReceived(
            inStream: 1, inDelivered: 0, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        first.didSend(upTo: 5)
        #expect(first.inFlight == 1...5)
        // ...the session drops; the next one starts from the store and the peer's HELLO,
        // which says it committed 3 of them before the drop.
        var second = OutgoingFlow(stream: 1, highestAssigned: 5)
        #expect(second.inFlight == nil)
        let resume = second.helloReceived(
            inStream: 1, inDelivered: 3, inRead: 0, stored: .init(stream: 1, firstUndelivered: 1))
        #expect(resume.deliveredUpTo == 3)
        #expect(second.sendable == 4...5)
    }

    @Test func messagesCommittedDuringASessionBecomeSendable() {
        var flow = OutgoingFlow(stream: nil, highestAssigned: 0)
        _ = flow.helloReceived(inStream: 0, inDelivered: 0, inRead: 0, stored: nil)
        #expect(flow.sendable == nil)
        flow.assigned(stream: 77, upTo: 2)
        #expect(flow.sendable == 1...2)
    }

    /// The store is read for the peer's HELLO, then the first message to the peer is
    /// committed, then the HELLO is applied: that message goes out (it once started after it).
    @Test func theFirstMessageCommittedWhileTheHelloIsAppliedIsSent() {
        var flow = OutgoingFlow(stream: nil, highestAssigned: 0)
        flow.assigned(stream: 77, upTo: 1)
        _ = flow.helloReceived(inStream: 0, inDelivered: 0, inRead: 0, stored: nil)
        #expect(flow.sendable == 1...1)
    }

    /// The same with a peer that does not follow our stream (it lost its store): the read
    /// found everything delivered, a new message came after it.
    @Test func aMessageCommittedAfterTheHelloReadIsSentToAPeerStartingOver() {
        var flow = OutgoingFlow(stream: 9, highestAssigned: 5)
        flow.assigned(stream: 9, upTo: 6)
        _ = flow.helloReceived(
            inStream: 0, inDelivered: 0, inRead: 0, stored: .init(stream: 9, firstUndelivered: 6))
        #expect(flow.sendable == 6...6)
        #expect(flow.inFlight == nil)
    }

    // MARK: Identity, arbitration, backoff

    @Test func identityPolicyFollowsTheTableOfSection3_8() throws {
        let own = try #require(PeerKey(bytes: [UInt8](repeating: 1, count: 32)))
        let alice = try #require(PeerKey(bytes: [UInt8](repeating: 2, count: 32)))
        let mallory = try #require(PeerKey(bytes: [UInt8](repeating: 3, count: 32)))
        let policy = IdentityPolicy(ownKey: own)
        #expect(throws: IdentityPolicy.Rejection.ownKey) {
            try policy.decide(remote: own, expectation: nil, isBlocked: false).get()
        }
        #expect(throws: IdentityPolicy.Rejection.blocked) {
            try policy.decide(remote: mallory, expectation: nil, isBlocked: true).get()
        }
        #expect(
            throws: IdentityPolicy.Rejection.pinnedKeyMismatch(
                expected: alice, presented: mallory)
        ) {
            try policy.decide(remote: mallory, expectation: .pinned(alice), isBlocked: false)
                .get()
        }
        #expect(
            throws: IdentityPolicy.Rejection.announcedKeyMismatch(
                expected: alice, presented: mallory)
        ) {
            try policy.decide(remote: mallory, expectation: .announced(alice), isBlocked: false)
                .get()
        }
        try policy.decide(remote: alice, expectation: .pinned(alice), isBlocked: false).get()
        try policy.decide(remote: alice, expectation: nil, isBlocked: false).get()
    }

    @Test func bothSidesOfASimultaneousDialKeepTheSameSession() throws {
        let small = try #require(PeerKey(bytes: [UInt8](repeating: 1, count: 32)))
        let large = try #require(PeerKey(bytes: [UInt8](repeating: 2, count: 32)))
        // Side "small" has its own dial (initiator small) first, then accepts large's dial.
        let atSmall = SessionArbitration.decide(
            existingAge: .seconds(1), existingInitiator: small, newInitiator: large)
        // Side "large" has its own dial (initiator large) first, then accepts small's dial.
        let atLarge = SessionArbitration.decide(
            existingAge: .seconds(1), existingInitiator: large, newInitiator: small)
        #expect(atSmall == .keepExisting)
        #expect(atLarge == .replaceAsDuplicate)
        #expect(
            SessionArbitration.decide(
                existingAge: .seconds(11), existingInitiator: small, newInitiator: large)
                == .replaceAsReconnect)
        #expect(
            SessionArbitration.decide(
                existingAge: .seconds(1), existingInitiator: large, newInitiator: large)
                == .replaceAsReconnect)
    }

    @Test func backoffDoublesWithJitterUpToTheCapAndResets() {
        var backoff = RedialBackoff()
        var generator = SystemRandomNumberGenerator()
        var nominal: Duration = .seconds(1)
        for _ in 0..<12 {
            let delay = backoff.nextDelay(using: &generator)
            #expect(delay >= nominal * 0.75 && delay <= nominal * 1.25)
            nominal = min(nominal * 2, .seconds(300))
        }
        backoff.sessionEnded(after: .seconds(59))
        #expect(backoff.failures == 12)
        backoff.sessionEnded(after: .seconds(60))
        #expect(backoff.failures == 0)
    }
}
