import Foundation
import GRDB
import LanChatCore

/// The durable event log (PRODUCT.md §4, `watch --since`). Message events are written by the
/// schema's triggers (`Schema.v3`); the few others by the write that causes them, in its
/// transaction. Rows are small (codes and ids); the message is joined when they are read.
extension MessageStore {
    /// Called after every commit that logged at least one event, on GRDB's writer queue: it
    /// must not block or touch the store synchronously (wake a task that reads `events`).
    /// Set it once, right after `open`, before anything is written.
    public var onEventsCommitted: (@Sendable () -> Void)? {
        get { eventObserver.currentHandler }
        set { eventObserver.setHandler(newValue) }
    }

    /// Logged events with `cursor > after`, oldest first, at most `limit`.
    public func events(after cursor: Int64, limit: Int) async throws(StoreError) -> [StoredEvent] {
        try await read("reading the event log") { db in
            var events: [StoredEvent] = []
            events.reserveCapacity(min(max(0, limit), 10_000))
            // The group columns (the message's, then the event's: schema v6 and v7) only
            // where they exist: the upgrade tests read the log of older schemas.
            let groups = try db.columns(in: "events").contains { $0.name == "gid" }
            try ColumnReader.forEachRow(
                db.cachedStatement(
                    sql: """
                        SELECT e.cursor, e.type, e.at, e.pk, e.status, \(StoredMessage.columns(of: "m"))
                        \(groups ? ", m.group_id, e.gid" : "")
                        FROM events e LEFT JOIN messages m ON m.rowid = e.message
                        WHERE e.cursor > ? ORDER BY e.cursor LIMIT ?
                        """),
                arguments: [cursor, max(0, limit)]
            ) { row throws in
                guard let type = StoredEventType(code: row.int64(1)) else {
                    throw StoreError(.corrupt, "event \(row.int64(0)) has an unknown type")
                }
                let message = row.isNull(5) ? nil : try StoredMessage(columns: row, from: 5)
                let changed = groups && !row.isNull(19) ? GroupID(bytes: row.bytes(19)) : nil
                // `status` holds a message's status, or what a presence event's peer's
                // presence became (`logPresence`).
                let code = row.optionalInt64(4)
                let presence = type == .peerPresence
                events.append(
                    StoredEvent(
                        cursor: row.int64(0), type: type, at: row.int64(2),
                        peer: row.isNull(3) ? nil : PeerKey(bytes: row.bytes(3)),
                        message: message,
                        status: presence ? nil : code.flatMap(StoredStatus.init(rawValue:)),
                        presence: presence ? code.flatMap(LoggedPresence.init(code:)) : nil,
                        group: changed ?? message?.group))
            }
            return events
        }
    }

    /// The oldest cursor still logged (nil: the log is empty) and the newest one given (0
    /// before the first event; pruning always keeps the newest).
    public func eventBounds() async throws(StoreError) -> (oldest: Int64?, newest: Int64) {
        try await read("reading the event log's bounds") { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT min(cursor), coalesce(max(cursor), 0) FROM events
                    """)
            return (row?[0], row?[1] ?? 0)
        }
    }

    /// Deletes the oldest events, keeping at least the newest `keepAtLeast` (never fewer than
    /// one: the newest event is what keeps cursors from being given again) and every event
    /// at or after `newerThan` (ms): only a prefix of the log goes, so the log never has a
    /// hole and "after cursor C" replays are exact for every C from `oldest − 1` on.
    /// Returns how many were deleted.
    @discardableResult
    public func pruneEvents(keepAtLeast: Int = 100_000, newerThan cutoff: Int64)
        async throws(StoreError) -> Int
    {
        try await writeBookkeeping("pruning the event log") { db in
            try db.execute(
                sql: """
                    DELETE FROM events
                    WHERE cursor <= (SELECT cursor FROM events ORDER BY cursor DESC LIMIT 1 OFFSET ?)
                      AND cursor < coalesce(
                        (SELECT cursor FROM events WHERE at >= ? ORDER BY cursor LIMIT 1),
                        9223372036854775807)
                    """,
                arguments: [max(1, keepAtLeast), cutoff])
            return db.changesCount
        }
    }

    /// Logs `peer.presence` (the daemon calls it when a peer's presence or availability
    /// changes) with what it became, so that a replay shows the peer as it was then. The
    /// other events are logged by the write that causes them (message events by the
    /// schema's triggers).
    public func logPresence(_ peer: PeerKey, _ presence: LoggedPresence, at now: Int64)
        async throws(StoreError)
    {
        try await writeBookkeeping("logging an event") { db in
            try Self.logEvent(db, .peerPresence, peer: peer, at: now, status: presence.code)
        }
    }

    /// `status`: a presence event's `LoggedPresence.code`; nil for the others.
    static func logEvent(
        _ db: Database, _ type: StoredEventType, peer: PeerKey, at now: Int64,
        status: Int64? = nil
    ) throws {
        try db.cachedStatement(
            sql: "INSERT INTO events (type, at, pk, status) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [type.code, now, peer.blob, status])
    }

    /// An event about a group (no peer): `conversation.read` of a group conversation.
    static func logEvent(_ db: Database, _ type: StoredEventType, group: GroupID, at now: Int64)
        throws
    {
        try db.cachedStatement(sql: "INSERT INTO events (type, at, gid) VALUES (?, ?, ?)")
            .execute(arguments: [type.code, now, group.blob])
    }
}
