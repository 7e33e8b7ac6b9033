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

func testKey(_ fill: UInt8) -> PeerKey {
    // Small fill values keep bit 255 clear, so these are canonical.
    PeerKey(bytes: [UInt8](repeating: fill & 0x7F, count: 32)) ?? testKeyFallback
}

private let testKeyFallback = PeerKey(bytes: [UInt8](repeating: 1, count: 32))!

func openStoreWithPeer(_ directory: TemporaryDirectory, peer: PeerKey) async throws -> MessageStore
{
    let store = try MessageStore.open(path: directory.storePath)
    try await store.recordPeerSeen(
        peer, keyTag: "TEST-TAG\(peer.bytes[0])", name: "bob", status: nil, statusText: nil,
        endpoint: nil, at: 1_000)
    return store
}
