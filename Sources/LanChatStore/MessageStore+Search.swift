import Foundation
import GRDB
import LanChatCore

/// Full-text search (PRODUCT.md §4 `search`) over `messages_fts`, the FTS5 index of
/// `messages`, built after the write (`MessageStore+SearchIndex.swift`), or, for a query
/// with Chinese, Japanese or Korean text or an emoji, over `messages_fts_cjk` (`Schema.v14`,
/// `v15`).
extension MessageStore {
    /// Messages matching `query` (from the 1:1 conversation with `peer` only, if given), newest
    /// first.
    /// The index is walked newest first (`ORDER BY rowid DESC` on the FTS5 table) and the
    /// walk stops at `limit`, so a word found in most messages costs no more than a rare one.
    /// Messages stored but not yet indexed are indexed first, so a search sees every message
    /// stored before it was called; when they cannot be written (a full disk, a read-only
    /// file system), what is indexed is searched all the same (found by QA: one message not
    /// yet indexed made every search fail until there was room again).
    /// `group`: only that group's messages (every member's copy of an own one).
    public func search(
        _ query: SearchQuery, peer: PeerKey? = nil, group: GroupID? = nil, limit: Int
    ) async throws(StoreError) -> [StoredMessage] {
        do {
            try await completeSearchIndex()
        } catch {
            guard error.kind == .unavailable else { throw error }
        }
        return try await read("searching messages") { db in
            // A term with a CJK character or an emoji: the CJK index (`Schema.v14`, `v15`),
            // where each such character is a token, so the term is found inside a run of CJK
            // text or against a word; every term must match there as here. A store of an
            // older schema (a test's) has none.
            let hasCJKIndex = try Self.hasCJKIndex(db)
            if query.usesCJKIndex && hasCJKIndex {
                return try Self.search(
                    db, index: "messages_fts_cjk", query, peer: peer, group: group, limit: limit)
            }
            let found = try Self.search(
                db, index: "messages_fts", query, peer: peer, group: group, limit: limit)
            guard hasCJKIndex else { return found }
            // A Latin word written against CJK text ("Swiftで書く") is one token with it in
            // `messages_fts`, and its own in `messages_fts_cjk`: both are asked, each for
            // `limit`, and the newest of the two, each message once, are the answer.
            let alongCJK = try Self.search(
                db, index: "messages_fts_cjk", query, peer: peer, group: group, limit: limit)
            guard !alongCJK.isEmpty else { return found }
            var seen = Set<Int64>()
            return (found + alongCJK).sorted { $0.rowID > $1.rowID }
                .filter { seen.insert($0.rowID).inserted }.prefix(max(0, limit)).map { $0 }
        }
    }

    /// One index's matches, newest first, at most `limit`.
    private static func search(
        _ db: Database, index: String, _ query: SearchQuery, peer: PeerKey?, group: GroupID?,
        limit: Int
    ) throws -> [StoredMessage] {
        // CROSS JOIN keeps the FTS5 table the outer loop, in its rowid order.
        var sql = """
            SELECT \(StoredMessage.columns(of: "m")), m.group_id
            FROM \(index) f CROSS JOIN messages m ON m.rowid = f.rowid
            WHERE \(index) MATCH ?
            """
        var arguments: StatementArguments = [query.matchExpression]
        if let peer {
            // The 1:1 conversation: the peer's group messages, and our group copies to
            // it, are their groups' (found by QA: they came up here).
            sql += " AND m.pk = ? AND m.group_id IS NULL"
            arguments += [peer.blob]
        }
        if let group {
            sql += " AND m.group_id = ?"
            arguments += [group.blob]
        }
        sql += " ORDER BY f.rowid DESC LIMIT ?"
        arguments += [max(0, limit)]
        return try StoredMessage.fetchAll(db, sql: sql, arguments: arguments)
    }
}
