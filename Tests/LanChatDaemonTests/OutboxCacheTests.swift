import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

@Suite struct OutboxCacheTests {
    static func messages(_ seqs: ClosedRange<UInt64>) throws -> [StoredMessage] {
        let peer = try #require(PeerKey(bytes: [UInt8](repeating: 7, count: 32)))
        return seqs.map { seq in
            StoredMessage(
                rowID: Int64(seq), id: MessageID.timeOrdered(millisecondsSince1970: 1_000),
                peer: peer, direction: .outgoing, stream: 9, seq: seq, text: "m\(seq)",
                createdAt: 1_000, status: .queued)
        }
    }

    @Test func anAckForgetsExactlyTheSeqsItCovers() throws {
        var cache = OutboxCache(capacity: 100)
        cache.keep(try Self.messages(1...10))
        cache.forget(through: 4)
        #expect(cache.count == 6)
        #expect(cache[4] == nil)
        #expect(cache[5]?.text == "m5")
        // An older ACK, repeated, changes nothing.
        cache.forget(through: 2)
        #expect(cache.count == 6)
        cache.forget(through: 10)
        #expect(cache.count == 0)
    }

    @Test func batchesCommittedOutOfOrderAreForgottenAsWell() throws {
        var cache = OutboxCache(capacity: 100)
        cache.keep(try Self.messages(11...20))
        cache.keep(try Self.messages(1...10))
        cache.forget(through: 15)
        #expect(cache.count == 5)
        #expect(cache[15] == nil)
        #expect(cache[16] != nil)
        // After everything is gone, new messages are kept and forgotten from their own seq.
        cache.forget(through: 30)
        cache.keep(try Self.messages(31...32))
        cache.forget(through: 31)
        #expect(cache.count == 1)
        #expect(cache[32] != nil)
    }

    @Test func aBatchThatDoesNotFitIsNotKept() throws {
        var cache = OutboxCache(capacity: 8)
        cache.keep(try Self.messages(1...5))
        cache.keep(try Self.messages(6...10))
        #expect(cache.count == 5)
        #expect(cache[6] == nil)
        cache.removeAll()
        #expect(cache[1] == nil)
        cache.keep(try Self.messages(6...10))
        #expect(cache.count == 5)
    }
}
