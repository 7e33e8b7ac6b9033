import Foundation
import GRDB
import LanChatCore
import Testing

@testable import LanChatStore

/// `groupHistory` pages in whole messages (issue 13): an own message is a row per member, and
/// a send of several texts stores each member's copies in turn, so the copies of one message
/// are spread out; a page never cuts them, and `before`/`after` walk every message once.
@Suite("Group history pages")
struct GroupHistoryTests {
    let members = [testKey(2), testKey(3), testKey(4)]

    /// The members besides the store's own peer (`openStoreWithPeer`), as peers it knows.
    func recordMembers(_ store: MessageStore) async throws {
        for (index, member) in members.enumerated() where index > 0 {
            try await store.recordPeerSeen(
                member, keyTag: "TEST-TAG\(index)", name: "m\(index)", status: nil,
                statusText: nil, endpoint: nil, at: 1_000)
        }
    }

    /// o1 o2 (one send) · b1 · o3 · c1 c2 · o4 o5 o6 (one send) · d1 · o7: 11 messages, 7 of
    /// them own with 3 copies each.
    func conversation(_ store: MessageStore, _ group: GroupID) async throws -> [String: MessageID] {
        try await recordMembers(store)
        var ids: [String: MessageID] = [:]
        var seqs: [PeerKey: UInt64] = [:]
        func send(_ texts: [String]) async throws {
            let copies = try await store.enqueueGroup(
                group, to: members, texts: texts, at: 2_000)
            for copy in copies[members[0]] ?? [] { ids[copy.text] = copy.id }
        }
        func receive(_ texts: [String], from member: PeerKey) async throws {
            let after = seqs[member] ?? 0
            let records = texts.enumerated().map { index, text in
                IncomingRecord(
                    message: WireMessage(
                        stream: 5, seq: after + UInt64(index) + 1, id: .random(), sentAt: 100,
                        group: group.bytes, text: text),
                    text: text)
            }
            let last = after + UInt64(texts.count)
            seqs[member] = last
            let stored = try await store.commitIncoming(
                from: member, records: records,
                cursor: IncomingCursor(stream: 5, delivered: last, read: 0), at: 3_000)
            for row in stored { ids[row.text] = row.id }
        }
        try await send(["o1", "o2"])
        try await receive(["b1"], from: members[0])
        try await send(["o3"])
        try await receive(["c1", "c2"], from: members[1])
        try await send(["o4", "o5", "o6"])
        try await receive(["d1"], from: members[2])
        try await send(["o7"])
        return ids
    }

    /// The page's messages in order, each once; every own one with a copy per member.
    func texts(_ page: MessageStore.HistoryPage) -> [String] {
        var texts: [String] = []
        for row in page.messages where !texts.contains(row.text) {
            texts.append(row.text)
            let copies = page.messages.filter { $0.text == row.text }
            if row.direction == .outgoing {
                #expect(Set(copies.map(\.peer)) == Set(members), "\(row.text)")
                #expect(copies.count == members.count, "\(row.text)")
            } else {
                #expect(copies.count == 1, "\(row.text)")
            }
        }
        return texts
    }

    /// A send's copies are stored text by text, each message's together, and each member's
    /// seqs rise with the rows (found by QA: stored member by member, a page of a large
    /// batch read the whole batch).
    @Test func aSendStoresEachMessagesCopiesTogether() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: members[0])
        try await recordMembers(store)
        let copies = try await store.enqueueGroup(
            GroupID.random(), to: members, texts: ["a", "b", "c"], at: 2_000)
        let rows = copies.values.flatMap { $0 }.sorted { $0.rowID < $1.rowID }
        #expect(rows.map(\.text) == ["a", "a", "a", "b", "b", "b", "c", "c", "c"])
        #expect(rows.prefix(3).map(\.peer) == members)
        for member in members {
            let own = try #require(copies[member])
            #expect(own.map(\.text) == ["a", "b", "c"])
            #expect(own.map(\.seq) == own.map(\.seq).sorted() && Set(own.map(\.stream)).count == 1)
        }
    }

    /// A store written before that keeps each send's copies member by member: its pages are
    /// the same.
    @Test func copiesStoredMemberByMemberPageTheSame() async throws {
        try await pagesBackwardsAndForwardsInWholeMessages(scattered: true)
    }

    /// Puts each send's copies in the order an earlier lanchat stored them: each member's
    /// copies in turn (the same rowids, permuted within each run of own rows).
    func scatterCopies(_ store: MessageStore) async throws {
        try await store.pool.write { db in
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT rowid, direction, pk, seq FROM messages WHERE group_id IS NOT NULL ORDER BY rowid"
            )
            var runs: [[Row]] = [[]]
            for row in rows {
                if (row["direction"] as Int64) == 1 {
                    runs[runs.count - 1].append(row)
                } else if !runs[runs.count - 1].isEmpty {
                    runs.append([])
                }
            }
            let order = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1.blob, $0) })
            for run in runs where run.count > 1 {
                let rowIDs = run.map { $0["rowid"] as Int64 }
                let memberMajor = run.sorted {
                    let (a, b) = (order[$0["pk"] as Data] ?? 0, order[$1["pk"] as Data] ?? 0)
                    return a != b ? a < b : ($0["seq"] as Int64) < ($1["seq"] as Int64)
                }
                for rowID in rowIDs {
                    try db.execute(
                        sql: "UPDATE messages SET rowid = rowid + 1000000 WHERE rowid = ?",
                        arguments: [rowID])
                }
                for (target, row) in zip(rowIDs, memberMajor) {
                    try db.execute(
                        sql: "UPDATE messages SET rowid = ? WHERE rowid = ?",
                        arguments: [target, (row["rowid"] as Int64) + 1_000_000])
                }
            }
        }
    }

    @Test func pagesBackwardsAndForwardsInWholeMessages() async throws {
        try await pagesBackwardsAndForwardsInWholeMessages(scattered: false)
    }

    func pagesBackwardsAndForwardsInWholeMessages(scattered: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: members[0])
        let group = GroupID.random()
        let ids = try await conversation(store, group)
        if scattered {
            try await scatterCopies(store)
            let spread = try await store.pool.read { db in
                try Int64.fetchOne(
                    db, sql: "SELECT max(rowid) - min(rowid) FROM messages WHERE text = 'o4'")
            }
            #expect(spread ?? 0 > Int64(members.count - 1), "o4's copies are spread out")
        }
        func id(_ text: String) throws -> MessageID { try #require(ids[text]) }

        let latest = try await store.groupHistory(group, limit: 4)
        #expect(texts(latest) == ["o5", "o6", "d1", "o7"])
        #expect(latest.hasOlder)
        #expect(!latest.hasNewer)
        let middle = try await store.groupHistory(group, limit: 4, anchor: .before(try id("o5")))
        #expect(texts(middle) == ["o3", "c1", "c2", "o4"])
        #expect(middle.hasOlder)
        #expect(middle.hasNewer)
        let oldest = try await store.groupHistory(group, limit: 4, anchor: .before(try id("o3")))
        #expect(texts(oldest) == ["o1", "o2", "b1"])
        #expect(!oldest.hasOlder)

        // Forwards from the first message: the same 11, once each, in order.
        // Each page says whether another follows: all but the last (o6, d1, o7).
        var walked = ["o1"]
        var last = try id("o1")
        var pagesWithNewer: [Bool] = []
        for _ in 0..<4 {
            let page = try await store.groupHistory(group, limit: 4, anchor: .after(last))
            #expect(page.hasOlder)
            guard let newest = page.messages.last else { break }
            pagesWithNewer.append(page.hasNewer)
            walked += texts(page)
            last = newest.id
        }
        #expect(pagesWithNewer == [true, true, false])
        #expect(
            walked == ["o1", "o2", "b1", "o3", "c1", "c2", "o4", "o5", "o6", "d1", "o7"])

        // After a text sent with others: the ones sent before it (whose copies come later
        // in the table) are not newer.
        let afterO2 = try await store.groupHistory(group, limit: 4, anchor: .after(try id("o2")))
        #expect(texts(afterO2) == ["b1", "o3", "c1", "c2"])
        let afterO5 = try await store.groupHistory(group, limit: 2, anchor: .after(try id("o5")))
        #expect(texts(afterO5) == ["o6", "d1"])
        let beforeO6 = try await store.groupHistory(group, limit: 1, anchor: .before(try id("o6")))
        #expect(texts(beforeO6) == ["o5"])
        let afterNewest = try await store.groupHistory(
            group, limit: 4, anchor: .after(try id("o7")))
        #expect(afterNewest.messages.isEmpty)
    }

    /// `status`'s queued counts messages: a group message once while any copy waits, and not
    /// once the link has every copy acknowledged (found by QA: one message to a group of 256
    /// away read "queued 254").
    @Test func aGroupMessageIsQueuedOnceWhileAnyCopyWaits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: members[0])
        try await recordMembers(store)
        let copies = try await store.enqueueGroup(
            GroupID.random(), to: members, texts: ["to all"], at: 2_000)
        #expect(try await store.counts().queued == 1)
        _ = try await store.enqueue(to: members[0], texts: ["just you"], at: 3_000)
        #expect(try await store.counts().queued == 2)
        func acknowledged(_ count: Int) throws -> [MessageStore.AcknowledgedRange] {
            try members.prefix(count).map { member in
                let copy = try #require(copies[member]?.first)
                return .init(peer: member, stream: copy.stream, upTo: copy.seq)
            }
        }
        #expect(try await store.counts(acknowledged: acknowledged(2)).queued == 2)
        #expect(try await store.counts(acknowledged: acknowledged(3)).queued == 1)
    }

    @Test func anAnchorOutsideTheGroupIsNotFound() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: members[0])
        let group = GroupID.random()
        _ = try await conversation(store, group)
        let direct = try await store.enqueue(to: members[0], texts: ["just you"], at: 5_000)
        let other = GroupID.random()
        let elsewhere = try await store.enqueueGroup(
            other, to: [members[0]], texts: ["elsewhere"], at: 5_000)
        let strangers = [direct[0].id, try #require(elsewhere[members[0]]?.first?.id), .random()]
        for id in strangers {
            for anchor in [MessageStore.PageAnchor.before(id), .after(id)] {
                do {
                    _ = try await store.groupHistory(group, limit: 4, anchor: anchor)
                    Issue.record("\(anchor) was found")
                } catch {
                    #expect(error.kind == .notFound)
                    #expect(error.description == "no message \(id) in this conversation")
                }
            }
        }
    }
}
