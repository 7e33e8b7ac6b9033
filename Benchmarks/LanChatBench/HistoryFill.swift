import Foundation
import LanChatCore
import LanChatCrypto
import LanChatStore

/// Fills a data directory's store with one conversation of `count` messages before its
/// daemon starts, through `LanChatStore`'s public API: the peer is added as `lanchat add`
/// would, and the messages are committed as received messages end up (`commitIncoming`: the
/// rows, indexes, events and conversation the daemon's receive path writes, at once rather
/// than staged first), 10 000 per transaction. The result is the store a daemon would have
/// after receiving that conversation.
struct HistoryFill {
    let dataDirectory: String
    let count: Int
    /// The peer's display name in the store.
    let peerName: String

    static let chunk = 10_000

    struct Outcome {
        let peer: PeerKey
        /// Ids of messages spread over the conversation, for pages deep in it.
        let anchors: [MessageID]
        let seconds: Double
    }

    func run() async throws -> Outcome {
        try makePrivateDirectory(dataDirectory)
        // The node's key first, as its first start would make it: lanchatd refuses a used
        // store without one (PROTOCOL.md §5).
        _ = try IdentityKeyPair.loadOrCreate(directory: dataDirectory)
        let store = try MessageStore.open(path: dataDirectory + "/" + MessageStore.fileName)
        defer { try? store.close() }
        let peer = try IdentityKeyPair.generate().publicKey
        let start = ContinuousClock.now
        let now = wallClockMilliseconds()
        try await store.addPeer(peer, keyTag: Fingerprint.keyTag(peer), name: peerName, at: now)
        let stream = UInt64.random(in: 1...UInt64.max)
        let anchorEvery = max(1, count / 200)
        var anchors: [MessageID] = []
        var seq: UInt64 = 0
        while seq < UInt64(count) {
            let size = min(Self.chunk, count - Int(seq))
            var records: [IncomingRecord] = []
            records.reserveCapacity(size)
            for _ in 0..<size {
                seq += 1
                let text = Payload.text(Int(seq))
                let id = MessageID.random()
                // Anchors stay away from the newest page so "before" pages are deep ones.
                if Int(seq) % anchorEvery == 0 && Int(seq) < count - 1_000 { anchors.append(id) }
                let sentAt = now - Int64(count) + Int64(seq)
                records.append(
                    IncomingRecord(
                        message: WireMessage(
                            stream: stream, seq: seq, id: id, sentAt: sentAt, text: text),
                        text: text))
            }
            let stored = try await store.commitIncoming(
                from: peer, records: records,
                cursor: IncomingCursor(stream: stream, delivered: seq, read: 0), at: now)
            guard stored.count == size else {
                throw BenchError.failed("the store kept \(stored.count) of \(size) messages")
            }
        }
        return Outcome(peer: peer, anchors: anchors, seconds: start.duration(to: .now).seconds)
    }
}
