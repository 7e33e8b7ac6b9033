import Foundation
import GRDB
import LanChatCore

/// `history GROUP` pages (PRODUCT.md §4), in whole messages.
///
/// An own group message is one row per member (the copies share its id); an incoming one is
/// one row. A message's place in the conversation is its first row (the lowest rowid of its
/// copies); its copies need not be next to each other (a send of several texts stores each
/// member's copies in turn), so pages cannot be cut by rows. Instead a page walks the group's
/// rows from its bound, takes each message it meets whole (every copy, found by id through
/// `messages_by_uuid`, one probe per known peer), and stops once the messages it holds are
/// certainly the nearest ones: a message not met yet has all its rows beyond the walk.
extension MessageStore {
    /// A page of `group`'s conversation, oldest first: at most `limit` messages, each with
    /// every copy (the caller folds an own message's copies into one with its recipients),
    /// copies of one message together and in rowid order. `.latest` and `.before(id)` are
    /// the messages right before the bound, `hasOlder` when more exist before them; `.after(id)`
    /// is the messages right after it, and (like a peer's) `hasOlder` is then always true, as
    /// the anchor itself is older; `hasNewer` is its mirror. An anchor id that is not in this group is `notFound`.
    public func groupHistory(_ group: GroupID, limit: Int, anchor: PageAnchor = .latest)
        async throws(StoreError) -> HistoryPage
    {
        try await read("reading group history") { db in
            var pager = GroupPager(db: db, group: group, limit: limit)
            switch anchor {
            case .latest:
                return try pager.older(than: Int64.max)
            case .before(let id):
                var page = try pager.older(than: try pager.place(of: id))
                page.hasNewer = true  // the anchor, at least
                return page
            case .after(let id):
                return try pager.newer(than: try pager.place(of: id))
            }
        }
    }
}

/// One page's walk over a group's rows (inside one read transaction).
private struct GroupPager {
    /// A message met on the walk: its place (first row) and every copy.
    struct Whole {
        var place: Int64
        var copies: [StoredMessage]
    }

    /// Own messages are one by id; an incoming row is one by itself (two members may send
    /// the same id: both are shown, as before).
    enum Key: Hashable {
        case own(MessageID)
        case incoming(rowID: Int64)
    }

    let db: Database
    let group: GroupID
    let limit: Int
    /// Rows read per step; doubled at each step so a page costs a few reads at most.
    private var step: Int
    private var met: [Key: Whole] = [:]

    init(db: Database, group: GroupID, limit: Int) {
        self.db = db
        self.group = group
        self.limit = limit
        step = max(64, 4 * (limit + 1))
    }

    /// The rows of one message id in this group (arguments: the id, the group), found through
    /// `messages_by_uuid`: one probe per known peer, as every row's peer is in `peers`.
    static func rowsOfOneID(directions: String) -> String {
        """
        FROM messages INDEXED BY messages_by_uuid
        WHERE pk IN (SELECT pk FROM peers) AND direction IN (\(directions)) AND uuid = ?
            AND group_id = ?
        """
    }

    /// The place of message `id` in this group, or `notFound` (the peer's words).
    func place(of id: MessageID) throws -> Int64 {
        guard
            let place = try Int64.fetchOne(
                db,
                sql: "SELECT min(rowid) " + Self.rowsOfOneID(directions: "0, 1"),
                arguments: [id.blob, group.blob])
        else { throw StoreError(.notFound, "no message \(id) in this conversation") }
        return place
    }

    /// The `limit` messages placed right before `bound`, oldest first.
    mutating func older(than bound: Int64) throws -> MessageStore.HistoryPage {
        // Walking down: every message not met yet is placed below `cursor`, so once more
        // than `limit` met ones are placed at or above it, those are the nearest. A message
        // met by a copy that is not its first is placed below the cursor until the walk
        // passes its first copy.
        var cursor = bound
        var settled = 0
        // Ascending; the walk passes them from the top. Kept sorted, so that each row costs
        // a search, not a count of them all (found by QA: a batch stored member by member
        // left a thousand messages placed below, and a page of ten took 10 s).
        var below: [Int64] = []
        walk: while true {
            let rows = try StoredMessage.fetchAll(
                db,
                sql: """
                    SELECT \(StoredMessage.columnsWithGroup) FROM messages
                    WHERE group_id = ? AND rowid < ? ORDER BY rowid DESC LIMIT ?
                    """,
                arguments: [group.blob, cursor, step])
            for row in rows {
                cursor = row.rowID
                if let place = try meet(row) {
                    if place >= cursor { settled += 1 } else { below.insertSorted(place) }
                }
                while let top = below.last, top >= cursor {
                    below.removeLast()
                    settled += 1
                }
                if settled > limit { break walk }
            }
            guard rows.count == step else { break }
            step *= 2
        }
        let nearest = met.values.sorted { $0.place > $1.place }
        return MessageStore.HistoryPage(
            messages: nearest.prefix(limit).reversed().flatMap(\.copies),
            hasOlder: nearest.count > limit)
    }

    /// The `limit` messages placed right after `bound`, oldest first.
    mutating func newer(than bound: Int64) throws -> MessageStore.HistoryPage {
        // Walking up: every message not met yet is placed above `cursor`, and one met is
        // placed at or below it (its first copy is at or below the row that met it), so the
        // first `limit` met above `bound` are the nearest. A message met here may be placed
        // at or below `bound` (the anchor itself, or a text sent with it whose first copy is
        // older): not part of this page.
        var cursor = bound
        var found = 0
        walk: while true {
            let rows = try StoredMessage.fetchAll(
                db,
                sql: """
                    SELECT \(StoredMessage.columnsWithGroup) FROM messages
                    WHERE group_id = ? AND rowid > ? ORDER BY rowid LIMIT ?
                    """,
                arguments: [group.blob, cursor, step])
            for row in rows {
                cursor = row.rowID
                if let place = try meet(row), place > bound { found += 1 }
                // One more than the page: whether newer messages exist past it.
                if found > limit { break walk }
            }
            guard rows.count == step else { break }
            step *= 2
        }
        let nearest = met.values.filter { $0.place > bound }.sorted { $0.place < $1.place }
        return MessageStore.HistoryPage(
            messages: nearest.prefix(limit).flatMap(\.copies), hasOlder: true,
            hasNewer: nearest.count > limit)
    }

    /// Takes the message of `row` whole, once: an incoming row is all of it; an own one
    /// brings every member's copy. Returns the place of a message met for the first time
    /// (nil for one met before).
    private mutating func meet(_ row: StoredMessage) throws -> Int64? {
        guard row.direction == .outgoing else {
            met[.incoming(rowID: row.rowID)] = Whole(place: row.rowID, copies: [row])
            return row.rowID
        }
        guard met[.own(row.id)] == nil else { return nil }
        let copies = try StoredMessage.fetchAll(
            db,
            sql: "SELECT \(StoredMessage.columnsWithGroup) " + Self.rowsOfOneID(directions: "1")
                + " ORDER BY rowid",
            arguments: [row.id.blob, group.blob])
        // Every copy's peer is in `peers` (a foreign key); the row itself stands in if not.
        let whole = copies.isEmpty ? [row] : copies
        let place = whole[0].rowID
        met[.own(row.id)] = Whole(place: place, copies: whole)
        return place
    }
}

extension Array where Element == Int64 {
    /// Inserts `value` where it keeps an ascending array ascending: one binary search.
    fileprivate mutating func insertSorted(_ value: Int64) {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        insert(value, at: low)
    }
}
