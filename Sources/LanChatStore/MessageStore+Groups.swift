import Foundation
import GRDB
import LanChatCore

/// A group as stored (schema v6): its latest accepted state and the member list it was built
/// on (`GroupConvergence`'s basis).
public struct StoredGroup: Sendable, Equatable {
    public var state: GroupUpdate
    public var basis: [PeerKey]
    public var updatedAt: Int64
    /// A pending group request (schema v7, `--accept contacts`): the member who added us.
    public var requestFrom: PeerKey?

    public init(
        state: GroupUpdate, basis: [PeerKey], updatedAt: Int64, requestFrom: PeerKey? = nil
    ) {
        self.state = state
        self.basis = basis
        self.updatedAt = updatedAt
        self.requestFrom = requestFrom
    }
}

extension GroupID {
    var blob: Data { Data(bytes) }
}

/// Groups, their GROUP frames per peer, and group messages (one copy per member on that
/// member's stream, PROTOCOL.md §9.7). Kept apart from the direct-message write path.
extension MessageStore {
    static func keysBlob(_ keys: [PeerKey]) -> Data {
        Data(Array(Set(keys)).sorted().flatMap(\.bytes))
    }

    static func keys(_ blob: Data) throws(StoreError) -> [PeerKey] {
        let bytes = [UInt8](blob)
        guard bytes.count % PeerKey.byteCount == 0 else {
            throw StoreError(.corrupt, "a group's member list is not whole keys")
        }
        var keys: [PeerKey] = []
        var offset = 0
        while offset < bytes.count {
            guard let key = PeerKey(bytes: bytes[offset..<offset + PeerKey.byteCount]) else {
                throw StoreError(.corrupt, "a group lists an invalid member key")
            }
            keys.append(key)
            offset += PeerKey.byteCount
        }
        return keys
    }

    static func group(_ row: Row) throws(StoreError) -> StoredGroup {
        let gid: Data = row["gid"]
        guard let id = GroupID(bytes: gid) else {
            throw StoreError(.corrupt, "a group row has an invalid id")
        }
        return StoredGroup(
            state: GroupUpdate(
                id: id, version: UInt64(stored: row["version"]), name: row["name"],
                members: try keys(row["members"])),
            basis: try keys(row["basis"]), updatedAt: row["updated_at"],
            requestFrom: (row["request_from"] as Data?).flatMap { PeerKey(bytes: $0) })
    }

    /// Every group we hold (also those we left or were removed from), by name.
    /// Served from `groupsCache` while no group was written since the last read.
    public func groups() async throws(StoreError) -> [StoredGroup] {
        let (cached, generation) = groupsCache.snapshot()
        if let cached { return cached }
        let groups = try await read("reading groups", settling: false) { db in
            try Row.fetchAll(db, sql: "SELECT * FROM groups ORDER BY name, gid").map {
                row throws in try Self.group(row)
            }
        }
        groupsCache.keep(groups, readIn: generation)
        return groups
    }

    /// Through `groups()` and its cache: a member looks its group up for every group
    /// message it receives.
    public func group(_ id: GroupID) async throws(StoreError) -> StoredGroup? {
        try await groups().first { $0.state.id == id }
    }

    /// Stores a group's new state and, **in the same transaction**, the GROUP frame each of
    /// `recipients` must receive (current members, and a member this change removed). Every
    /// recipient must be a known peer. `expectedVersion`: the version the change was built
    /// on; when another state was stored meanwhile, nothing is written and false returned.
    /// Logs `group.changed` by `changedBy` (our own key, or the member it came from) in the
    /// same transaction. A group stored for the first time with `requestFrom` is a pending
    /// group request (`--accept contacts`) until `acceptGroupRequest`.
    public func saveGroup(
        _ group: StoredGroup, recipients: [PeerKey], expectedVersion: UInt64?,
        changedBy: PeerKey
    ) async throws(StoreError) -> Bool {
        let frame = Data(AppMessage.group(group.state).encoded())
        let observer = eventObserver
        return try await write("storing a group") { db in
            let current = try Int64.fetchOne(
                db, sql: "SELECT version FROM groups WHERE gid = ?",
                arguments: [group.state.id.blob]
            ).map(UInt64.init(stored:))
            guard current == expectedVersion else { return false }
            observer.groupsWritten()
            try db.execute(
                sql: """
                    INSERT INTO groups (gid, name, version, members, basis, updated_at,
                        request_since, request_from)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (gid) DO UPDATE SET name = excluded.name,
                        version = excluded.version, members = excluded.members,
                        basis = excluded.basis, updated_at = excluded.updated_at
                    """,
                arguments: [
                    group.state.id.blob, group.state.name, group.state.version.storedValue,
                    Self.keysBlob(group.state.members), Self.keysBlob(group.basis),
                    group.updatedAt, group.requestFrom.map { _ in group.updatedAt },
                    group.requestFrom?.blob,
                ])
            for recipient in recipients {
                // A recipient this change removed keeps the last frame that listed it, so
                // that one which never had the group (offline since before it was invited)
                // can take it before the removal, and the messages sent while it was in.
                // So does every recipient when the change's author left: the frame before
                // lists the author, whose frames alone a member that never had the group
                // cannot take (found by QA: a creator who left before the others came
                // online left them with no group, and its messages refused).
                try db.execute(
                    sql: """
                        INSERT INTO group_outbox (pk, gid, frame) VALUES (?, ?, ?)
                        ON CONFLICT (pk, gid) DO UPDATE SET
                            membership = CASE WHEN ? THEN NULL
                                ELSE coalesce(group_outbox.membership, group_outbox.frame) END,
                            frame = excluded.frame
                        """,
                    arguments: [
                        recipient.blob, group.state.id.blob, frame,
                        group.state.hasMember(recipient) && group.state.hasMember(changedBy),
                    ])
            }
            try db.execute(
                sql: "INSERT INTO events (type, at, pk, gid) VALUES (?, ?, ?, ?)",
                arguments: [
                    StoredEventType.groupChanged.code, group.updatedAt, changedBy.blob,
                    group.state.id.blob,
                ])
            return true
        }
    }

    /// The group's current frame queued for each of `peers` that has none queued: a member
    /// we send to learns the group from us, whoever told us of it. Returns the peers it was
    /// queued for.
    public func queueGroupFrame(_ state: GroupUpdate, for peers: [PeerKey]) async throws(StoreError)
        -> [PeerKey]
    {
        let frame = Data(AppMessage.group(state).encoded())
        return try await write("queuing a group's frame") { db in
            var queued: [PeerKey] = []
            for peer in peers {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO group_outbox (pk, gid, frame) VALUES (?, ?, ?)",
                    arguments: [peer.blob, state.id.blob, frame])
                if db.changesCount > 0 { queued.append(peer) }
            }
            return queued
        }
    }

    /// Who made the group's current state: the `changedBy` of its latest `group.changed`
    /// (our own key for a local change); nil when the log no longer holds one.
    public func groupStateAuthor(_ group: GroupID) async throws(StoreError) -> PeerKey? {
        try await read("reading who changed a group") { db in
            try Data.fetchOne(
                db,
                sql: """
                    SELECT pk FROM events WHERE type = ? AND gid = ? ORDER BY rowid DESC LIMIT 1
                    """,
                arguments: [StoredEventType.groupChanged.code, group.blob]
            ).flatMap { PeerKey(bytes: $0) }
        }
    }

    /// The GROUP frames `peer` must have, the latest per group, after the last one that
    /// listed it where a later one removed it: sent first on every session.
    /// `group`: only that group's (the one just changed), not every group the peer shares.
    public func groupFrames(for peer: PeerKey, group: GroupID? = nil) async throws(StoreError)
        -> [GroupUpdate]
    {
        try await read("reading group frames", settling: false) { db in
            try Row.fetchAll(
                db,
                sql: "SELECT membership, frame FROM group_outbox WHERE pk = ?"
                    + (group == nil ? "" : " AND gid = ?") + " ORDER BY gid",
                arguments: StatementArguments([peer.blob] + (group.map { [$0.blob] } ?? []))
            ).flatMap { row in
                [row["membership"] as Data?, row["frame"] as Data?].compactMap { $0 }
            }.compactMap { frame in
                guard case .group(let update) = try? AppMessage.decode([UInt8](frame)) else {
                    return nil
                }
                return update
            }
        }
    }

    /// Stores one copy of each text per member (`queued`, on that member's stream, with the
    /// next seqs), all in **one transaction**; the copies of a text share one id. Returns the
    /// copies by member, in text order.
    ///
    /// A member in `refused` (its daemon does not support groups) gets its copy stored
    /// `failed` with that reason, outside its stream (stream 0), so nothing is ever sent.
    public func enqueueGroup(
        _ group: GroupID, to members: [PeerKey], refused: [PeerKey: String] = [:],
        texts: [String], at now: Int64,
        newStreamID: @escaping @Sendable () -> UInt64 = randomStreamID
    ) async throws(StoreError) -> [PeerKey: [StoredMessage]] {
        try Self.refuseNUL(in: texts)
        return try await write("storing the group message") { db in
            var random = BatchRandom(expectedDraws: 2 * texts.count)
            let ids = MessageID.timeOrdered(
                count: texts.count, millisecondsSince1970: now, using: &random)
            var copies: [PeerKey: [StoredMessage]] = [:]
            // Prepared once, not once per copy: an insert into `messages` compiles its
            // triggers too, which cost more than the insert (figure 9 profile).
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO messages (uuid, pk, direction, stream, seq, text,
                        created_at, status, fail_reason, group_id)
                    VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?) RETURNING rowid
                    """)
            var streams: [(stream: UInt64, nextSeq: UInt64)] = []
            for member in members {
                streams.append(
                    refused[member] != nil
                        ? (0, try Self.nextRefusedSeq(db, peer: member))
                        : try Self.outgoingStream(db, peer: member) ?? (newStreamID(), 1))
            }
            // Text by text, each member's copy in turn: a message's copies lie together, so
            // a history page reads the rows of the messages it shows, not the whole batch
            // (found by QA: stored member by member, a page of 1 000 lines to 255 members
            // walked all 255 000 rows). Each member's seqs still rise with the rows.
            for (index, text) in texts.enumerated() {
                for (position, member) in members.enumerated() {
                    let reason = refused[member]
                    let (stream, seq) = streams[position]
                    let rowID = try Int64.fetchOne(
                        insert,
                        arguments: [
                            ids[index].blob, member.blob, stream.storedValue, seq.storedValue,
                            text, now, (reason == nil ? StoredStatus.queued : .failed).rawValue,
                            reason, group.blob,
                        ])
                    guard let rowID else {
                        throw StoreError(.unavailable, "a group message was not stored")
                    }
                    copies[member, default: []].append(
                        StoredMessage(
                            rowID: rowID, id: ids[index], peer: member, direction: .outgoing,
                            stream: stream, seq: seq, text: text, createdAt: now,
                            status: reason == nil ? .queued : .failed, failReason: reason,
                            group: group))
                    streams[position].nextSeq += 1
                }
            }
            for (position, member) in members.enumerated() where refused[member] == nil {
                try Self.saveOutgoingStream(
                    db, peer: member, stream: streams[position].stream,
                    nextSeq: streams[position].nextSeq)
            }
            return copies
        }
    }

    /// Refused copies live on stream 0, numbered after the last one there.
    static func nextRefusedSeq(_ db: Database, peer: PeerKey) throws -> UInt64 {
        UInt64(
            stored: try Int64.fetchOne(
                db,
                sql: """
                    SELECT coalesce(max(seq), 0) + 1 FROM messages
                    WHERE pk = ? AND direction = 1 AND stream = 0
                    """,
                arguments: [peer.blob]) ?? 1)
    }

    /// The current rows of these outgoing messages, each named by its peer and id (a group
    /// message has a copy per member under one id), for `send --wait` at its deadline.
    public func outgoing(_ copies: [(peer: PeerKey, id: MessageID)]) async throws(StoreError)
        -> [StoredMessage]
    {
        try await read("reading messages") { db in
            try copies.compactMap { copy throws in
                try StoredMessage.fetchAll(
                    db,
                    sql: """
                        SELECT \(StoredMessage.columns) FROM messages
                        WHERE pk = ? AND direction = 1 AND uuid = ?
                        """,
                    arguments: [copy.peer.blob, copy.id.blob]
                ).first
            }
        }
    }

    /// `read GROUP`: marks the group's unread incoming messages read at `now`, in one
    /// transaction with each sender's incoming cursor (a copy travels on its sender's stream,
    /// so its READ is that stream's, PROTOCOL.md §9.5), and its `conversation.read` event.
    /// Group rows count in no peer's unread (the v6 triggers), so no 1:1 conversation changes.
    /// `span` narrows it to part of the conversation (an own message's id places it at its
    /// first copy for `from`, its last for `through`).
    public func markGroupRead(
        _ group: GroupID, span: ReadSpan = .all, at now: Int64, budget: Int = PageBudget.maxBytes,
        raisingReadCursors: Bool = true
    ) async throws(StoreError) -> ReadMarking {
        try await write("marking group messages read") { db in
            let bounds = try span.condition { id, last in
                guard
                    let rowID = try Int64.fetchOne(
                        db,
                        sql: "SELECT \(last ? "max" : "min")(rowid) FROM messages "
                            + "WHERE group_id = ? AND uuid = ?",
                        arguments: [group.blob, id.blob])
                else { throw StoreError(.notFound, "no message \(id) in this group") }
                return rowID
            }
            let (rows, more) = try Self.markOldestRead(
                db, unread: "group_id = ? AND direction = 0 AND read_at IS NULL" + bounds.sql,
                arguments: [group.blob] + bounds.arguments, at: now, budget: budget)
            let marked = rows.sorted { $0.rowID < $1.rowID }
            var receipts: [ReadMarking.Receipt] = []
            for peer in Set(marked.map(\.peer)) where raisingReadCursors {
                if let receipt = try Self.raiseReadCursor(db, peer: peer) {
                    receipts.append(receipt)
                }
            }
            if !marked.isEmpty {
                try Self.logEvent(db, .conversationRead, group: group, at: now)
            }
            return ReadMarking(messages: marked, receipts: receipts, more: more)
        }
    }
}
