import Foundation
import GRDB
import LanChatCore

/// Incoming messages and cursors (PROTOCOL.md §9.4).
extension MessageStore {
    public func incomingCursor(from peer: PeerKey) async throws(StoreError) -> IncomingCursor {
        try await read("reading the incoming cursor", settling: false) { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT stream, delivered, read FROM in_cursors WHERE pk = ?",
                    arguments: [peer.blob])
            else { return IncomingCursor() }
            return IncomingCursor(
                stream: UInt64(stored: row["stream"]), delivered: UInt64(stored: row["delivered"]),
                read: UInt64(stored: row["read"]))
        }
    }

    /// Stores a batch of in-order messages and the cursor that covers them **in one
    /// transaction** (one fsync for the whole batch: group commit), as messages at once. The
    /// daemon uses `storeReceived`, which stages bursts; this path is for tools and tests. A
    /// message whose id is already stored for this peer is skipped (the second line of
    /// defence against duplicates); the returned records are the ones actually stored.
    public func commitIncoming(
        from peer: PeerKey, records: [IncomingRecord], cursor: IncomingCursor, at now: Int64
    ) async throws(StoreError) -> [StoredMessage] {
        try Self.refuseNUL(in: records.map(\.text))
        let setBased = batchBookkeeping
        return try await write(
            "storing received messages",
            onCallersThread: records.count <= Self.callersThreadWriteLimit
        ) { db in
            let stored = try Self.insertIncoming(
                db, from: peer, records: records, receivedAt: now, setBased: setBased)
            try Self.saveCursor(db, of: peer, cursor)
            return stored
        }
    }

    /// Inserts received messages as rows (with their events and conversations) and returns
    /// those stored: a message whose id is already stored for `peer` is skipped.
    static func insertIncoming(
        _ db: Database, from peer: PeerKey, records: [IncomingRecord], receivedAt now: Int64,
        setBased: Bool
    ) throws -> [StoredMessage] {
        // Group messages (schema v6) name their group in the insert itself, so the trigger
        // keeps them out of the 1:1 conversation; a batch without any keeps the statement
        // every schema version has.
        let hasGroup = records.contains { $0.message.group != nil }
        let rowIDs = try MessageInsert.insert(
            db, count: records.count,
            columns: "uuid, pk, direction, stream, seq, text, created_at, received_at"
                + (hasGroup ? ", group_id" : ""),
            row: hasGroup ? "(?, ?, 0, ?, ?, ?, ?, ?, ?)" : "(?, ?, 0, ?, ?, ?, ?, ?)",
            suffix: "ON CONFLICT (pk, direction, uuid) DO NOTHING",
            setBased: setBased,
            id: { records[$0].message.id },
            bind: { index, binder in
                let message = records[index].message
                binder.blob(message.id.bytes)
                binder.blob(peer.bytes)
                binder.int64(message.stream.storedValue)
                binder.int64(message.seq.storedValue)
                binder.text(records[index].text)
                binder.int64(message.sentAt)
                binder.int64(now)
                if hasGroup { binder.optionalBlob(message.group) }
            })
        var stored: [StoredMessage] = []
        stored.reserveCapacity(records.count)
        for (record, rowID) in zip(records, rowIDs) {
            // Nil: already stored, or repeated in this batch (the unique index skipped it).
            guard let rowID else { continue }
            let message = record.message
            stored.append(
                StoredMessage(
                    rowID: rowID, id: message.id, peer: peer, direction: .incoming,
                    stream: message.stream, seq: message.seq, text: record.text,
                    createdAt: message.sentAt, receivedAt: now,
                    group: message.group.flatMap { GroupID(bytes: $0) }))
        }
        return stored
    }

    /// Records how far `peer`'s stream is stored. `read` never moves back within a stream:
    /// the caller's cursor comes from the link's in-memory ledger, which may not have seen a
    /// concurrent `markRead` yet.
    static func saveCursor(_ db: Database, of peer: PeerKey, _ cursor: IncomingCursor) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO in_cursors (pk, stream, delivered, read) VALUES (?, ?, ?, ?)
                ON CONFLICT (pk) DO UPDATE SET stream = excluded.stream,
                    delivered = excluded.delivered,
                    read = CASE WHEN in_cursors.stream = excluded.stream
                        THEN max(in_cursors.read, excluded.read) ELSE excluded.read END
                """
        ).execute(arguments: [
            peer.blob, cursor.stream.storedValue, cursor.delivered.storedValue,
            cursor.read.storedValue,
        ])
    }
}

extension MessageStore {
    /// SQLite binds a Swift string as a C string, so a text with U+0000 would be stored cut
    /// at the NUL while the caller believes all of it was kept. The daemon refuses such texts
    /// earlier (API: bad input; wire: REJECT); this is the store's own guarantee.
    static func refuseNUL(in texts: [String]) throws(StoreError) {
        let hasNUL = texts.contains { text in
            text.utf8.withContiguousStorageIfAvailable { bytes in
                bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false
            } ?? text.utf8.contains(0)
        }
        guard hasNUL else { return }
        throw StoreError(.invalidText, "a message text contains U+0000 (NUL); nothing was stored")
    }
}
