import Foundation
import LanChatCore
import LanChatCrypto
import LanChatStore

/// Figure 8: the reading side of the store (issue 10), through `LanChatStore`'s API with no
/// daemon around it: search over `searchMessages` messages (a rare word and a word in every
/// message), the inbox with `inboxConversations` conversations, and the event log's replay
/// rate (what `watch --since` reads).
struct StoreReadingBench {
    let scale: BenchScale
    let directory: String

    /// One message in this many carries the rare word.
    static let rareEvery = 10_000
    static let rareWord = "quokka"
    /// In every message (`Payload.text`).
    static let commonWord = "benchmark"

    func run() async throws -> [Figure] {
        try makePrivateDirectory(directory)
        let searchStore = try MessageStore.open(path: directory + "/search.sqlite3")
        defer { try? searchStore.close() }
        let fillSeconds = try await fill(searchStore)
        // The daemon's SearchIndexer does this in the background, in the same batches.
        let indexStart = ContinuousClock.now
        let indexed = try await searchStore.completeSearchIndex()
        let indexSeconds = indexStart.duration(to: .now).seconds
        guard indexed == scale.searchMessages else {
            throw BenchError.failed("the search index took \(indexed) messages")
        }
        let rare = try await timeSearch(
            searchStore, Self.rareWord, matches: scale.searchMessages / Self.rareEvery)
        let common = try await timeSearch(
            searchStore, Self.commonWord, matches: scale.searchMessages)
        let replay = try await replayRate(searchStore)
        let inboxStore = try MessageStore.open(path: directory + "/inbox.sqlite3")
        defer { try? inboxStore.close() }
        let inbox = try await timeInbox(inboxStore)
        let size = scale.searchMessages.grouped
        let rareCount = (scale.searchMessages / Self.rareEvery).grouped
        return [
            Figure(
                key: "search_rare_ms", group: 8,
                title: "search over \(size) messages, a rare word (\(rareCount) matches)",
                value: rare.median, unit: "ms", target: .atMost(10),
                note: "\(rare.count.grouped) `MessageStore.search` calls, limit 50; median",
                details: rare.summary),
            Figure(
                key: "search_ms", group: 8,
                title: "search over \(size) messages, a word in every message",
                value: common.median, unit: "ms", target: .atMost(50),
                note: "\(common.count.grouped) calls, limit 50 (newest first); median",
                details: common.summary),
            Figure(
                key: "search_fill_msg_per_s", group: 8,
                title: "↳ filling the store for it (`commitIncoming`, 10 000 per transaction)",
                value: Double(scale.searchMessages) / fillSeconds, unit: "msg/s", target: nil,
                note: "with the triggers: an event and the conversation per message"),
            Figure(
                key: "search_index_msg_per_s", group: 8,
                title: "↳ indexing them for search afterwards (`completeSearchIndex`)",
                value: Double(scale.searchMessages) / indexSeconds, unit: "msg/s", target: nil,
                note:
                    "batches of \(MessageStore.searchIndexBatch.grouped), as the daemon's SearchIndexer"
            ),
            Figure(
                key: "inbox_ms", group: 8,
                title: "inbox of \(scale.inboxConversations.grouped) conversations",
                value: inbox.median, unit: "ms", target: .atMost(2),
                note: "\(inbox.count.grouped) `MessageStore.conversations` calls; median",
                details: inbox.summary),
            Figure(
                key: "event_replay_per_s", group: 8,
                title: "event log replay (`events(after:)`, pages of 1 000)",
                value: replay, unit: "events/s", target: .atLeast(100_000),
                note: "\(scale.replayEvents.grouped) message events with their messages joined"),
        ]
    }

    /// One peer's conversation of `searchMessages` received messages, as `HistoryFill`.
    private func fill(_ store: MessageStore) async throws -> Double {
        let peer = try IdentityKeyPair.generate().publicKey
        let now = wallClockMilliseconds()
        try await store.addPeer(peer, keyTag: Fingerprint.keyTag(peer), name: "frank", at: now)
        let stream = UInt64.random(in: 1...UInt64.max)
        let start = ContinuousClock.now
        var seq: UInt64 = 0
        while seq < UInt64(scale.searchMessages) {
            let size = min(HistoryFill.chunk, scale.searchMessages - Int(seq))
            var records: [IncomingRecord] = []
            records.reserveCapacity(size)
            for _ in 0..<size {
                seq += 1
                var text = Payload.text(Int(seq))
                if Int(seq) % Self.rareEvery == 0 { text = Self.rareWord + " " + text }
                records.append(
                    IncomingRecord(
                        message: WireMessage(
                            stream: stream, seq: seq, id: .random(), sentAt: now, text: text),
                        text: text))
            }
            _ = try await store.commitIncoming(
                from: peer, records: records,
                cursor: IncomingCursor(stream: stream, delivered: seq, read: 0), at: now)
        }
        return start.duration(to: .now).seconds
    }

    private func timeSearch(_ store: MessageStore, _ text: String, matches: Int)
        async throws -> Samples
    {
        let query = try SearchQuery(parsing: text)
        var samples = Samples()
        for _ in 0..<scale.searchCalls {
            let start = ContinuousClock.now
            let found = try await store.search(query, limit: 50)
            samples.append(start.duration(to: .now).milliseconds)
            guard found.count == min(50, matches) else {
                throw BenchError.failed("search \(text) found \(found.count) messages")
            }
        }
        return samples
    }

    /// Events per second over the first `replayEvents` of the log, read as `watch --since`
    /// reads them.
    private func replayRate(_ store: MessageStore) async throws -> Double {
        var cursor: Int64 = 0
        var read = 0
        let start = ContinuousClock.now
        while read < scale.replayEvents {
            let page = try await store.events(after: cursor, limit: 1_000)
            guard let last = page.last else { break }
            read += page.count
            cursor = last.cursor
        }
        guard read >= scale.replayEvents else {
            throw BenchError.failed("the event log held \(read) events")
        }
        return Double(read) / start.duration(to: .now).seconds
    }

    /// `inboxConversations` peers with 5 received messages each, half of them read.
    private func timeInbox(_ store: MessageStore) async throws -> Samples {
        let now = wallClockMilliseconds()
        for index in 0..<scale.inboxConversations {
            let peer = try IdentityKeyPair.generate().publicKey
            try await store.addPeer(
                peer, keyTag: Fingerprint.keyTag(peer), name: "p\(index)", at: now)
            let records = (1...5).map { seq in
                IncomingRecord(
                    message: WireMessage(
                        stream: 1, seq: UInt64(seq), id: .random(), sentAt: now + Int64(index),
                        text: Payload.text(seq)),
                    text: Payload.text(seq))
            }
            _ = try await store.commitIncoming(
                from: peer, records: records, cursor: IncomingCursor(stream: 1, delivered: 5),
                at: now + Int64(index))
            if index % 2 == 0 { _ = try await store.markRead(peer: peer, at: now) }
        }
        var samples = Samples()
        for _ in 0..<scale.searchCalls {
            let start = ContinuousClock.now
            let inbox = try await store.conversations(archived: false)
            samples.append(start.duration(to: .now).milliseconds)
            guard inbox.count == scale.inboxConversations else {
                throw BenchError.failed("the inbox listed \(inbox.count) conversations")
            }
        }
        return samples
    }
}
