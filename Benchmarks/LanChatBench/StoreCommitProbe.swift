import LanChatCore
import LanChatCrypto
import LanChatStore

/// Context for figure 1: what one `send` costs in the store alone, without a daemon around
/// it. Opens a fresh store (WAL, `synchronous=FULL`, as the daemon does), adds a peer and
/// times `count` single-message `enqueue` calls, each its own durable transaction.
struct StoreCommitProbe {
    let directory: String
    let count: Int

    func run() async throws -> Figure {
        try makePrivateDirectory(directory)
        let store = try MessageStore.open(path: directory + "/probe.sqlite3")
        defer { try? store.close() }
        let peer = try IdentityKeyPair.generate().publicKey
        try await store.addPeer(
            peer, keyTag: Fingerprint.keyTag(peer), name: "probe", at: wallClockMilliseconds())
        var samples = Samples()
        for index in 0..<count {
            let start = ContinuousClock.now
            _ = try await store.enqueue(
                to: peer, texts: [Payload.text(index)], at: wallClockMilliseconds())
            samples.append(start.duration(to: .now).milliseconds)
        }
        return Figure(
            key: "store_enqueue_one_p50_ms", group: 1,
            title: "↳ one `MessageStore.enqueue` alone, no daemon: p50 (p99 in JSON)",
            value: samples.median, unit: "ms", target: nil,
            note: "\(count.grouped) single-message durable transactions on a fresh store",
            details: samples.summary)
    }
}
