import Foundation
import GRDB
import LanChatCore

/// The outbox and our outgoing streams (PROTOCOL.md §9.2, §9.5).
extension MessageStore {
    /// Stores new messages to `peer` as `queued`, assigning the stream (created with the first
    /// message) and consecutive seqs **in the same transaction**. When this returns, the
    /// messages are on disk; nothing is stored if it throws, also for a text with U+0000.
    public func enqueue(
        to peer: PeerKey, texts: [String], at now: Int64,
        newStreamID: @escaping @Sendable () -> UInt64 = randomStreamID
    ) async throws(StoreError) -> [StoredMessage] {
        try Self.refuseNUL(in: texts)
        let setBased = batchBookkeeping
        return try await write(
            "storing the message", onCallersThread: texts.count <= Self.callersThreadWriteLimit
        ) { db in
            guard
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM peers WHERE pk = ?"),
                    arguments: [peer.blob]) != nil
            else { throw StoreError(.notFound, "unknown peer \(peer.id)") }
            var (stream, nextSeq) = try Self.outgoingStream(db, peer: peer) ?? (newStreamID(), 1)
            var random = BatchRandom(expectedDraws: 2 * texts.count)
            let ids = MessageID.timeOrdered(
                count: texts.count, millisecondsSince1970: now, using: &random)
            let firstSeq = nextSeq
            let rowIDs = try MessageInsert.insert(
                db, count: texts.count,
                columns: "uuid, pk, direction, stream, seq, text, created_at, status",
                row: "(?, ?, 1, ?, ?, ?, ?, 0)", setBased: setBased,
                id: { ids[$0] }
            ) { index, binder in
                binder.blob(ids[index].bytes)
                binder.blob(peer.bytes)
                binder.int64(stream.storedValue)
                binder.int64((firstSeq + UInt64(index)).storedValue)
                binder.text(texts[index])
                binder.int64(now)
            }
            var stored: [StoredMessage] = []
            stored.reserveCapacity(texts.count)
            for (index, text) in texts.enumerated() {
                guard let rowID = rowIDs[index] else {
                    throw StoreError(.unavailable, "a queued message was not stored")
                }
                stored.append(
                    StoredMessage(
                        rowID: rowID, id: ids[index], peer: peer, direction: .outgoing,
                        stream: stream, seq: nextSeq, text: text, createdAt: now,
                        status: .queued))
                nextSeq += 1
            }
            try Self.saveOutgoingStream(db, peer: peer, stream: stream, nextSeq: nextSeq)
            return stored
        }
    }

    /// Records our stream to `peer` and its next unassigned seq.
    static func saveOutgoingStream(
        _ db: Database, peer: PeerKey, stream: UInt64, nextSeq: UInt64
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO out_streams (pk, stream, next_seq) VALUES (?, ?, ?)
                ON CONFLICT (pk) DO UPDATE SET stream = excluded.stream, next_seq = excluded.next_seq
                """
        ).execute(arguments: [peer.blob, stream.storedValue, nextSeq.storedValue])
    }

    static func outgoingStream(_ db: Database, peer: PeerKey) throws -> (UInt64, UInt64)? {
        let statement = try db.cachedStatement(
            sql: "SELECT stream, next_seq FROM out_streams WHERE pk = ?")
        var found: (UInt64, UInt64)?
        try ColumnReader.forEachRow(statement, arguments: [peer.blob]) { row in
            found = (UInt64(stored: row.int64(0)), UInt64(stored: row.int64(1)))
        }
        return found
    }

    /// Our stream to `peer` and where its undelivered part starts; nil before the first
    /// message.
    public func outgoingState(for peer: PeerKey) async throws(StoreError) -> OutgoingStreamState? {
        try await read("reading the outgoing stream", settling: false) { db in
            guard let (stream, nextSeq) = try Self.outgoingStream(db, peer: peer) else {
                return nil
            }
            let first = try Int64.fetchOne(
                db,
                sql: """
                    SELECT min(seq) FROM messages
                    WHERE pk = ? AND direction = 1 AND status = 0 AND stream = ?
                    """,
                arguments: [peer.blob, stream.storedValue])
            return OutgoingStreamState(
                stream: stream, nextSeq: nextSeq, firstUndelivered: first.map(UInt64.init(stored:)))
        }
    }

    /// Messages of `stream` from `seq` on, in seq order, whatever their status (a peer that
    /// resumes below a failed message must still see every seq).
    public func outgoing(to peer: PeerKey, stream: UInt64, from seq: UInt64, limit: Int)
        async throws(StoreError) -> [StoredMessage]
    {
        try await read("reading the outbox", settling: false) { db in
            try StoredMessage.fetchAll(
                db,
                sql: """
                    SELECT \(StoredMessage.columnsWithGroup) FROM messages
                    WHERE pk = ? AND direction = 1 AND stream = ? AND seq >= ?
                    ORDER BY seq LIMIT ?
                    """,
                arguments: [peer.blob, stream.storedValue, seq.storedValue, limit]
            )
        }
    }

    /// Whether any message of ours to `peer` went out on `stream`: an earlier stream of ours
    /// (one a restart replaced) is known, anything else is not.
    public func holdsOutgoing(to peer: PeerKey, stream: UInt64) async throws(StoreError) -> Bool {
        try await read("reading the outbox", settling: false) { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM messages
                        WHERE pk = ? AND direction = 1 AND stream = ?)
                    """,
                arguments: [peer.blob, stream.storedValue]) ?? false
        }
    }

    /// Marks queued messages with `seq ≤ upTo` delivered; returns those that changed.
    public func markDelivered(peer: PeerKey, stream: UInt64, upTo seq: UInt64, at now: Int64)
        async throws(StoreError) -> [StoredMessage]
    {
        try await markDelivered(
            peer: peer, stream: stream, steps: [DeliveryStep(upTo: seq, at: now)])
    }

    /// Marks queued messages delivered, step by step in one transaction (`steps` in seq
    /// order), each at its own ACK's time; returns those that changed.
    public func markDelivered(peer: PeerKey, stream: UInt64, steps: [DeliveryStep])
        async throws(StoreError) -> [StoredMessage]
    {
        let setBased = batchBookkeeping
        return try await writeBookkeeping("recording delivery") { db in
            try steps.flatMap { step in
                try Self.setDelivered(
                    db, peer: peer, stream: stream, upTo: step.upTo, at: step.at,
                    setBased: setBased)
            }
        }
    }

    /// `markDelivered` for when nobody wants the rows (no event subscriber): the same update
    /// without building a `StoredMessage` for each changed row, which cost as much as the
    /// update itself for a batch of ACKed messages. Returns how many changed.
    public func recordDelivered(peer: PeerKey, stream: UInt64, upTo seq: UInt64, at now: Int64)
        async throws(StoreError) -> Int
    {
        try await recordDelivered(
            peer: peer, stream: stream, steps: [DeliveryStep(upTo: seq, at: now)])
    }

    /// `recordDelivered` of several steps in one transaction, as `markDelivered(steps:)`.
    public func recordDelivered(peer: PeerKey, stream: UInt64, steps: [DeliveryStep])
        async throws(StoreError) -> Int
    {
        let setBased = batchBookkeeping
        return try await writeBookkeeping("recording delivery") { db in
            var changed = 0
            for step in steps {
                changed += try Self.delivering(
                    db, peer: peer, stream: stream, upTo: step.upTo, at: step.at,
                    setBased: setBased
                ) { arguments in
                    try db.cachedStatement(sql: Self.deliveredUpdate).execute(
                        arguments: arguments)
                    return db.changesCount
                }
            }
            return changed
        }
    }

    /// Marks queued or delivered messages with `seq ≤ upTo` read by the peer.
    public func markReadByPeer(peer: PeerKey, stream: UInt64, upTo seq: UInt64, at now: Int64)
        async throws(StoreError) -> [StoredMessage]
    {
        let setBased = batchBookkeeping
        return try await writeBookkeeping("recording a read receipt") { db in
            try Self.setReadByPeer(
                db, peer: peer, stream: stream, upTo: seq, at: now, setBased: setBased)
        }
    }

    /// Logs `message.status` events saying our messages `seqs` of `stream` are `sent`
    /// (written to a session, no ACK for a while) or `queued` again (that session ended
    /// before their ACK). Only rows still queued in the store: one whose delivery is already
    /// written is past both. Nothing else is written: `sent` is never a row's status.
    public func logSent(
        _ status: StoredStatus, peer: PeerKey, stream: UInt64, seqs: ClosedRange<UInt64>,
        at now: Int64
    ) async throws(StoreError) {
        try await writeBookkeeping("logging sent messages") { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO events (type, at, pk, message, status)
                    SELECT 2, ?, pk, rowid, ? FROM messages
                    WHERE pk = ? AND direction = 1 AND stream = ? AND seq BETWEEN ? AND ?
                        AND status = 0
                    ORDER BY seq
                    """
            ).execute(
                arguments: [
                    now, status.rawValue, peer.blob, stream.storedValue,
                    seqs.lowerBound.storedValue, seqs.upperBound.storedValue,
                ])
        }
    }

    /// Our queued messages of a stream up to a seq: what an ACK delivers (arguments: the
    /// peer, the stream, the seq).
    static let deliverableRows =
        "pk = ? AND direction = 1 AND stream = ? AND seq <= ? AND status = 0"
    /// They become delivered (arguments: the time, then `deliverableRows`'). `markDelivered`
    /// adds RETURNING; `recordDelivered` does not.
    static let deliveredUpdate =
        "UPDATE messages SET status = 2, delivered_at = ? WHERE " + deliverableRows
    /// Our queued or delivered messages of a stream up to a seq: what a READ marks read.
    static let readableRows =
        "pk = ? AND direction = 1 AND stream = ? AND seq <= ? AND status IN (0, 2)"

    static func setDelivered(
        _ db: Database, peer: PeerKey, stream: UInt64, upTo seq: UInt64, at now: Int64,
        setBased: Bool
    ) throws -> [StoredMessage] {
        try delivering(db, peer: peer, stream: stream, upTo: seq, at: now, setBased: setBased) {
            try StoredMessage.fetchAll(
                db, sql: deliveredUpdate + " RETURNING \(StoredMessage.columns)", arguments: $0)
        }
    }

    /// Runs `update`, a `deliveredUpdate` statement given its arguments, with the events of
    /// the messages it delivers (`BatchBookkeeping.changingStatus`).
    private static func delivering<T>(
        _ db: Database, peer: PeerKey, stream: UInt64, upTo seq: UInt64, at now: Int64,
        setBased: Bool, _ update: (StatementArguments) throws -> T
    ) throws -> T {
        let rows: StatementArguments = [peer.blob, stream.storedValue, seq.storedValue]
        return try BatchBookkeeping.changingStatus(
            db, setBased: setBased, to: .delivered, at: now, rows: deliverableRows,
            arguments: rows
        ) { try update([now] + rows) }
    }

    static func setReadByPeer(
        _ db: Database, peer: PeerKey, stream: UInt64, upTo seq: UInt64, at now: Int64,
        setBased: Bool
    ) throws -> [StoredMessage] {
        let rows: StatementArguments = [peer.blob, stream.storedValue, seq.storedValue]
        return try BatchBookkeeping.changingStatus(
            db, setBased: setBased, to: .read, at: now, rows: readableRows, arguments: rows
        ) {
            try StoredMessage.fetchAll(
                db,
                sql: """
                    UPDATE messages SET status = 3, read_at = ?, delivered_at = coalesce(delivered_at, ?)
                    WHERE \(readableRows) RETURNING \(StoredMessage.columns)
                    """,
                arguments: [now, now] + rows)
        }
    }

    /// The peer REJECTed the message: `failed` with the reason (PROTOCOL.md §9.5).
    public func markFailed(peer: PeerKey, stream: UInt64, seq: UInt64, reason: String)
        async throws(StoreError) -> StoredMessage?
    {
        try await write("recording a rejection") { db in
            try StoredMessage.fetchAll(
                db,
                sql: """
                    UPDATE messages SET status = 4, fail_reason = ?
                    WHERE pk = ? AND direction = 1 AND stream = ? AND seq = ? AND status = 0
                    RETURNING \(StoredMessage.columns)
                    """,
                arguments: [reason, peer.blob, stream.storedValue, seq.storedValue]
            ).first
        }
    }

    /// Starts a fresh stream to `peer` (its cursor is ahead of ours: our store went back in
    /// time). Queued messages move to the new stream in their order.
    ///
    /// `resending`: the peer resumes our current stream at this seq, which we no longer hold
    /// (purged: its store went back in time, to a backup, past what we removed). What we
    /// still hold from there on, acknowledged or not, goes first on the new stream, queued
    /// again: the peer's store lost it with the rest (found by QA: messages delivered after
    /// the backup were never sent again, and stayed "delivered" here).
    public func rotateStream(
        to peer: PeerKey, resending from: UInt64? = nil,
        newStreamID: @escaping @Sendable () -> UInt64 = randomStreamID
    ) async throws(StoreError) -> UInt64 {
        try await write("starting a new stream") { db in
            if let from {
                try db.execute(
                    sql: """
                        UPDATE messages SET status = 0, delivered_at = NULL, read_at = NULL
                        WHERE pk = ? AND direction = 1 AND status IN (2, 3) AND seq >= ?
                            AND stream = (SELECT stream FROM out_streams WHERE pk = ?)
                        """,
                    arguments: [peer.blob, from.storedValue, peer.blob])
            }
            let stream = newStreamID()
            try Self.restartStream(db, to: peer, stream: stream)
            return stream
        }
    }

    /// Puts failed messages back in the queue with new seqs at the end of the current stream
    /// (their old seqs were already processed by the peer). `id`, `peer`, `group` and
    /// `failReason` narrow the set.
    /// A group copy comes back with its group: the link sends what this returns, and without
    /// it the copy went out as a 1:1 message. A peer that has no stream yet gets one: a group
    /// copy refused at once (the member was blocked, or lacked groups) may be the first
    /// message ever sent to it, and was stored outside any stream.
    public func requeueFailed(
        id: MessageID? = nil, peer: PeerKey? = nil, group: GroupID? = nil,
        failReason: String? = nil,
        newStreamID: @escaping @Sendable () -> UInt64 = randomStreamID
    ) async throws(StoreError) -> [StoredMessage] {
        try await write("re-queuing failed messages") { db in
            // A blocked peer's copies stay failed ("blocked; unblock to send"): nothing goes
            // to it while the block stands. Nor to a key a newer one replaced (verify --link).
            var sql = """
                SELECT rowid, pk FROM messages WHERE direction = 1 AND status = 4
                  AND pk NOT IN (
                    SELECT pk FROM peers WHERE trust = 'blocked' OR replaced_by IS NOT NULL)
                """
            var arguments: StatementArguments = []
            if let id {
                sql += " AND uuid = ?"
                arguments += [id.blob]
            }
            if let peer {
                sql += " AND pk = ?"
                arguments += [peer.blob]
            }
            if let group {
                sql += " AND group_id = ?"
                arguments += [group.blob]
            }
            if let failReason {
                sql += " AND fail_reason = ?"
                arguments += [failReason]
            }
            var requeued: [StoredMessage] = []
            for row in try Row.fetchAll(db, sql: sql + " ORDER BY rowid", arguments: arguments) {
                let pk: Data = row["pk"]
                guard let key = PeerKey(bytes: pk) else {
                    throw StoreError(.corrupt, "a message row has an invalid peer key")
                }
                let (stream, nextSeq) =
                    try Self.outgoingStream(db, peer: key) ?? (newStreamID(), 1)
                let rowID: Int64 = row["rowid"]
                requeued += try StoredMessage.fetchAll(
                    db,
                    sql: """
                        UPDATE messages SET status = 0, fail_reason = NULL, stream = ?, seq = ?
                        WHERE rowid = ? RETURNING \(StoredMessage.columnsWithGroup)
                        """,
                    arguments: [stream.storedValue, nextSeq.storedValue, rowID])
                try Self.saveOutgoingStream(db, peer: key, stream: stream, nextSeq: nextSeq + 1)
            }
            return requeued
        }
    }
}

extension MessageStore {
    /// The blocked peers with failed messages, which `requeueFailed` leaves failed until they
    /// are unblocked (a key a newer one replaced is not among them: nothing goes to it again).
    public func blockedPeersWithFailedMessages() async throws(StoreError) -> [PeerKey] {
        try await read("reading failed messages") { db in
            try Data.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT pk FROM messages WHERE direction = 1 AND status = 4
                      AND pk IN (
                        SELECT pk FROM peers WHERE trust = 'blocked' AND replaced_by IS NULL)
                    """
            ).compactMap(PeerKey.init(bytes:))
        }
    }
}

/// A random non-zero u64 (PROTOCOL.md §9.2).
@Sendable public func randomStreamID() -> UInt64 {
    var generator = SystemRandomNumberGenerator()
    return UInt64.random(in: 1...UInt64.max, using: &generator)
}

extension MessageStore {
    /// Applies what the peer's HELLO says about our stream in **one transaction**, before
    /// anything is resent (PROTOCOL.md §9.3): delivered up to `delivered`, read up to `read`.
    /// Returns the messages whose status changed.
    public func applyResume(
        peer: PeerKey, stream: UInt64, deliveredUpTo delivered: UInt64?, readUpTo read: UInt64?,
        at now: Int64
    ) async throws(StoreError) -> [StoredMessage] {
        let setBased = batchBookkeeping
        return try await writeBookkeeping("applying the peer's resume point") { db in
            var changed: [StoredMessage] = []
            if let delivered {
                changed += try Self.setDelivered(
                    db, peer: peer, stream: stream, upTo: delivered, at: now, setBased: setBased)
            }
            if let read {
                let readRows = try Self.setReadByPeer(
                    db, peer: peer, stream: stream, upTo: read, at: now, setBased: setBased)
                let readIDs = Set(readRows.map(\.id))
                changed = changed.filter { !readIDs.contains($0.id) } + readRows
            }
            return changed
        }
    }
}
