import Foundation
import GRDB
import LanChatCore

/// Full-text search (PRODUCT.md §4 `search`) over `messages_fts`, the FTS5 index of
/// `messages`, built after the write (`MessageStore+SearchIndex.swift`), or, for a query
/// with Chinese, Japanese or Korean text, over `messages_fts_cjk` (`Schema.v14`).
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
            // A term with a CJK character: the CJK index (`Schema.v14`), where each such
            // character is a token, so the term is found inside a run of CJK text; every
            // term must match there as here. A store of an older schema (a test's) has none.
            let cjk = try query.containsCJK && Self.hasCJKIndex(db)
            let index = cjk ? "messages_fts_cjk" : "messages_fts"
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
}
