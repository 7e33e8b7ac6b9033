import Foundation
import LanChatCore
import Testing

@testable import LanChatStore

/// A fresh directory under /tmp, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = "/tmp/lanchat-test-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    var storePath: String { path + "/lanchat.sqlite3" }
}

/// A distinct canonical key per fill value (bit 255 stays clear below 0x80).
func testKey(_ fill: UInt8) -> PeerKey {
    guard let key = PeerKey(bytes: [UInt8](repeating: fill & 0x7F, count: 32)) else {
        preconditionFailure("a key of small repeated bytes is canonical")
    }
    return key
}

func openStoreWithPeer(_ directory: TemporaryDirectory, peer: PeerKey) async throws -> MessageStore
{
    let store = try MessageStore.open(path: directory.storePath)
    try await store.recordPeerSeen(
        peer, keyTag: "TEST-TAG\(peer.bytes[0])", name: "bob", status: nil, statusText: nil,
        endpoint: nil, at: 1_000)
    return store
}

/// Incoming messages `seqs` of `stream`, texts `texts` (default "m<seq>"), sent at 100.
func incomingRecords(stream: UInt64, seqs: ClosedRange<UInt64>, texts: [String]? = nil)
    -> [IncomingRecord]
{
    seqs.enumerated().map { index, seq in
        let text = texts?[index] ?? "m\(seq)"
        return IncomingRecord(
            message: WireMessage(stream: stream, seq: seq, id: .random(), sentAt: 100, text: text),
            text: text)
    }
}

/// A received message, of `group` when given, as the daemon hands it to the store.
func incomingRecord(
    stream: UInt64 = 5, seq: UInt64, group: GroupID? = nil, text: String
) -> IncomingRecord {
    IncomingRecord(
        message: WireMessage(
            stream: stream, seq: seq, id: .random(), sentAt: 100, group: group?.bytes,
            text: text),
        text: text)
}

/// Receives `texts` from `peer` on `stream`, continuing after `after`; the cursor covers them.
@discardableResult
func receive(
    _ store: MessageStore, from peer: PeerKey, stream: UInt64 = 5, after: UInt64 = 0,
    texts: [String], at now: Int64 = 200
) async throws -> [StoredMessage] {
    let last = after + UInt64(texts.count)
    return try await store.commitIncoming(
        from: peer,
        records: incomingRecords(stream: stream, seqs: (after + 1)...last, texts: texts),
        cursor: IncomingCursor(stream: stream, delivered: last, read: 0), at: now)
}
