import Foundation
import LanChatControl
import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

/// What the control API shows for an outgoing message: the store's status, with what the
/// peer link knows laid over it (`sent` in flight; `delivered` once ACKed, even before the
/// mark reaches the store).
@Suite struct MessageMappingTests {
    static let peer = PeerKey(bytes: [UInt8](repeating: 0x22, count: 31) + [0x02])

    static func outgoing(
        seq: UInt64, stream: UInt64 = 7, status: StoredStatus = .queued,
        deliveredAt: Int64? = nil
    ) throws -> StoredMessage {
        StoredMessage(
            rowID: Int64(seq), id: MessageID.random(), peer: try #require(peer),
            direction: .outgoing, stream: stream, seq: seq, text: "m\(seq)", createdAt: 100,
            status: status, failReason: status == .failed ? "too big" : nil,
            deliveredAt: deliveredAt)
    }

    static func shown(_ message: StoredMessage, _ live: LiveOutgoingState) -> MessageInfo {
        MessageMapping.info(message, live: live)
    }

    @Test func withNothingLiveTheStoreDecides() throws {
        #expect(Self.shown(try Self.outgoing(seq: 1), .none).status == .queued)
        let delivered = try Self.outgoing(seq: 1, status: .delivered, deliveredAt: 150)
        #expect(Self.shown(delivered, .none).status == .delivered)
        #expect(Self.shown(delivered, .none).deliveredAt?.millisecondsSince1970 == 150)
        #expect(Self.shown(try Self.outgoing(seq: 1, status: .failed), .none).status == .failed)
    }

    @Test func anAcknowledgedMessageShowsDeliveredBeforeItsMarkIsStored() throws {
        var live = LiveOutgoingState()
        live.inFlight = (stream: 7, seqs: 1...10)
        live.unrecordedDeliveries[7] = DeliveryMark(upTo: 4, at: 200)
        let acknowledged = Self.shown(try Self.outgoing(seq: 4), live)
        #expect(acknowledged.status == .delivered)
        #expect(acknowledged.deliveredAt?.millisecondsSince1970 == 200)
        #expect(Self.shown(try Self.outgoing(seq: 5), live).status == .sent)
        #expect(Self.shown(try Self.outgoing(seq: 11), live).status == .queued)
        // Another stream's ACK covers nothing here; stored statuses are never overridden.
        #expect(Self.shown(try Self.outgoing(seq: 2, stream: 8), live).status == .queued)
        let failed = try Self.outgoing(seq: 3, status: .failed)
        #expect(Self.shown(failed, live).status == .failed)
        let recorded = try Self.outgoing(seq: 2, status: .delivered, deliveredAt: 150)
        #expect(Self.shown(recorded, live).deliveredAt?.millisecondsSince1970 == 150)
    }

    /// An own group message is one message with its members' copies as recipients; its
    /// status is the least advanced copy's, and so are its times: delivered when the last
    /// member had it, read when the last read it (not when the first did).
    @Test func anOwnGroupMessageIsDeliveredWhenTheLastMemberHasIt() throws {
        let group = try #require(GroupID(bytes: [UInt8](repeating: 0x0A, count: 16)))
        let id = MessageID.random()
        let carol = try #require(PeerKey(bytes: [UInt8](repeating: 0x33, count: 31) + [0x03]))
        let copies = try [(Self.peer, 110 as Int64?, 130 as Int64?), (carol, 120, nil)].map {
            member, delivered, read in
            StoredMessage(
                rowID: 1, id: id, peer: try #require(member), direction: .outgoing, stream: 7,
                seq: 1, text: "hi all", createdAt: 100, readAt: read,
                status: read == nil ? .delivered : .read, deliveredAt: delivered, group: group)
        }
        let shown = Messenger.groupInfos(copies, lives: [:], group: group, ownID: "OWN")
        #expect(shown.count == 1)
        #expect(shown.first?.status == .delivered)
        #expect(shown.first?.deliveredAt?.millisecondsSince1970 == 120)
        #expect(shown.first?.readAt == nil)
        #expect(shown.first?.recipients?.map(\.readAt?.millisecondsSince1970) == [130, nil])
    }

    /// Each member's copy says why it failed, as a 1:1 message does; the message's own
    /// `failReason` is the first failed copy's, and a copy that did not fail has none.
    @Test func eachFailedCopySaysWhyItFailed() throws {
        let group = try #require(GroupID(bytes: [UInt8](repeating: 0x0B, count: 16)))
        let id = MessageID.random()
        let carol = try #require(PeerKey(bytes: [UInt8](repeating: 0x33, count: 31) + [0x03]))
        let dave = try #require(PeerKey(bytes: [UInt8](repeating: 0x44, count: 31) + [0x04]))
        let copies = try [
            (Self.peer, StoredStatus.delivered, nil as String?), (carol, .failed, "blocked"),
            (dave, .failed, "does not support groups"),
        ].map { member, status, reason in
            StoredMessage(
                rowID: 1, id: id, peer: try #require(member), direction: .outgoing, stream: 7,
                seq: 1, text: "hi all", createdAt: 100, status: status, failReason: reason,
                deliveredAt: status == .delivered ? 110 : nil, group: group)
        }
        let shown = try #require(
            Messenger.groupInfos(copies, lives: [:], group: group, ownID: "OWN").first)
        #expect(shown.status == .failed)
        #expect(shown.failReason == "blocked")
        #expect(shown.recipients?.map(\.failReason) == [nil, "blocked", "does not support groups"])
        let json = try #require(String(data: try JSONEncoder().encode(shown), encoding: .utf8))
        #expect(json.contains(#""failReason":"does not support groups""#))
    }

    /// A wait's seconds as given, never in exponent form (found by QA: `1e-05 s`).
    @Test func waitSecondsAreWrittenAsDecimals() {
        #expect(
            [30, 0.5, 2.25, 0.00001, 0.0000001, 86_400].map(Messenger.format)
                == ["30", "0.5", "2.25", "0.00001", "0.0000001", "86400"])
    }

    /// `send --wait` ran out: the error says where the message is. "when bob is back" only
    /// of an offline peer (QA: it was said of a message in flight to an online one).
    @Test func aWaitThatRanOutSaysWhereTheMessageIs() throws {
        let queued = try Self.outgoing(seq: 1)
        func text(_ live: LiveOutgoingState, online: Bool, target: StatusWaiter.Target = .delivered)
            -> String
        {
            Messenger.timeoutText(
                [queued], live: live, online: online, target: target, seconds: 1, peer: "bob")
        }
        #expect(
            text(.none, online: false)
                == "not delivered within 1 s; still queued and will be delivered when bob is back")
        var inFlight = LiveOutgoingState()
        inFlight.inFlight = (stream: 7, seqs: 1...1)
        #expect(text(inFlight, online: true).contains("sent, not yet acknowledged by bob (online)"))
        #expect(
            text(.none, online: true).hasSuffix(
                "still queued, with bob online; they go out in their turn"))
        var acknowledged = LiveOutgoingState()
        acknowledged.unrecordedDeliveries[7] = DeliveryMark(upTo: 1, at: 200)
        #expect(
            text(acknowledged, online: true, target: .read).hasPrefix(
                "delivered but not read within 1 s"))
        // Found by QA: held for a key whose name another key took, it was "delivered when bob
        // is back", of a key that may never be.
        let claim = KeyChangeInfo(
            peer: PeerCandidate(id: "N", keyTag: "NNNN-2222", name: "bob", alias: nil),
            previous: PeerCandidate(id: "O", keyTag: "OOOO-3333", name: "bob", alias: "Bob"))
        let held = Messenger.timeoutText(
            [queued], live: .none, online: false, target: .delivered, seconds: 1, peer: "Bob",
            keyChange: claim)
        #expect(
            held.hasPrefix(
                "not delivered within 1 s; held for Bob's key OOOO-3333, now that "
                    + "NNNN-2222 uses its name"), "\(held)")
        #expect(held.hasSuffix("'lanchat verify NNNN-2222 --link' sends them to the new key"))
    }

    /// Found by QA: a `--wait-read` cut short by the stop said the delivered message "goes
    /// out when lanchatd runs again"; it says it was delivered, and the receipt still comes.
    @Test func aWaitForReadCutShortSaysWhatWasDelivered() throws {
        let queued = try Self.outgoing(seq: 1)
        var acknowledged = LiveOutgoingState()
        acknowledged.unrecordedDeliveries[7] = DeliveryMark(upTo: 1, at: 200)
        #expect(Messenger.allDelivered([queued], live: acknowledged))
        #expect(!Messenger.allDelivered([queued], live: .none))
        let delivered = Messenger.stoppingText(.read, count: 1, delivered: true)
        #expect(delivered.contains("it was delivered") && !delivered.contains("goes out"))
        #expect(
            Messenger.stoppingText(.read, count: 1, delivered: false).contains(
                "goes out when lanchatd runs again"))
        #expect(
            Messenger.stoppingText(.delivered, count: 2, delivered: false).contains(
                "the 2 messages were delivered"))
    }

    /// ACKs waiting to be written together each keep their time: one step per millisecond.
    @Test func coalescedAcksKeepEachMessagesTime() throws {
        var mark = DeliveryMark(upTo: 2, at: 200)
        mark.add(upTo: 3, at: 200)  // the same millisecond: the same step
        mark.add(upTo: 5, at: 207)
        mark.add(upTo: 4, at: 209)  // covers nothing new
        #expect(mark.steps == [DeliveryStep(upTo: 3, at: 200), DeliveryStep(upTo: 5, at: 207)])
        #expect(mark.upTo == 5)
        var live = LiveOutgoingState()
        live.unrecordedDeliveries[7] = mark
        let times = try (1...6).map {
            Self.shown(try Self.outgoing(seq: $0), live).deliveredAt?.millisecondsSince1970
        }
        #expect(times == [200, 200, 200, 207, 207, nil])
    }
}
